<?php
// Loaded with plain include by /leave only: what a request declares, FPM forgets.
function leftover_function()
{
    return 'left over';
}

class LeftoverClass
{
    public static $calls = 0;
}
