<?php

declare(strict_types=1);

// A classic upload form's handler: PHP's own checks that the file came with this request.
$file = $_FILES['upload'] ?? null;
$target = (string) ($_POST['target'] ?? '');
echo \json_encode([
    'uploaded' => \is_array($file) && \is_uploaded_file($file['tmp_name']),
    'other file' => \is_uploaded_file(__FILE__),
    'move other file' => @\move_uploaded_file(__FILE__, $target . '.not'),
    'moved' => \is_array($file) && \move_uploaded_file($file['tmp_name'], $target),
    'uploaded after the move' => \is_array($file) && \is_uploaded_file($file['tmp_name']),
]);
