<?php

require dirname(__DIR__) . '/lib/common.php';
report('admin');
