<?php

function greet($who)
{
    global $greeting;

    return "$greeting, $who";
}
