<?php

require 'lib/common.php';
if (($_POST['name'] ?? '') !== '') {
    header('Location: /admin/');
    exit;
}
report('login');
