<?php

declare(strict_types=1);

/*
 * Front controller for PHP-FPM answering every request with JSON of its superglobals, in the
 * shape of tests/Support/Http/dump/index.php; $_FILES turned into the same per-file tree.
 */

$describe = static function (array $files): array {
    $tree = [];
    foreach ($files as $field => $info) {
        $walk = static function ($name, $type, $size, $error, $tmp) use (&$walk) {
            if (!\is_array($name)) {
                return ['name' => $name, 'type' => $type, 'size' => $size, 'error' => $error, 'md5' => $error === \UPLOAD_ERR_OK ? \md5_file($tmp) : null];
            }
            $out = [];
            foreach ($name as $key => $value) {
                $out[$key] = $walk($value, $type[$key], $size[$key], $error[$key], $tmp[$key]);
            }

            return $out;
        };
        $tree[$field] = $walk($info['name'], $info['type'], $info['size'], $info['error'], $info['tmp_name']);
    }

    return $tree;
};
header('Content-Type: application/json');
echo \json_encode([
    'server' => $_SERVER,
    'get' => $_GET,
    'post' => $_POST,
    'cookie' => $_COOKIE,
    'files' => $describe($_FILES),
    'uri' => null,
], \JSON_THROW_ON_ERROR);
