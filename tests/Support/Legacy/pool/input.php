<?php
// What the script reads of its body, and a digest of it.
$body = (string) \file_get_contents('php://input');
echo \strlen($body), ' ', \md5($body);
