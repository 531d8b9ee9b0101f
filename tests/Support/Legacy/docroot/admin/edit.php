<?php

require '../lib/common.php'; // relative to the working directory: the script's, as under PHP-FPM
report('edit');
