<?php
require_once __DIR__ . '/auth.php';

if (isset($current_user)) {
    echo "[dashboard of $current_user]";
} else {
    echo '[please log in]';
}
