<?php
echo \getmypid();
