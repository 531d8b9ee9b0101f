<?php

declare(strict_types=1);

namespace Bobbin\Http\Form;

use Bobbin\Http\Message\UploadedFile;

/**
 * Turns a multipart/form-data body into fields and uploaded files as PHP-FPM would: field names
 * with brackets nest as in $_POST (PHP's own parse_str() builds the tree, so the rules are
 * PHP's), every file is written to a temporary file in upload_tmp_dir (or the system's), a file
 * over upload_max_filesize gets UPLOAD_ERR_INI_SIZE and no temporary file, an empty file input
 * UPLOAD_ERR_NO_FILE, and files beyond max_file_uploads are ignored.
 *
 * @internal used by RequestBuilder
 */
final class FormDecoder
{
    public function __construct(
        private readonly MultipartParser $parser,
        private readonly int $maxFileBytes,
        private readonly int $maxFiles,
        private readonly string $directory,
    ) {
    }

    /** Limits and the directory from this PHP's settings, as PHP-FPM reads them. */
    public static function fromIni(): self
    {
        $directory = (string) \ini_get('upload_tmp_dir');

        return new self(
            new MultipartParser(\max(1, (int) \ini_get('max_input_vars')) + \max(0, (int) \ini_get('max_file_uploads'))),
            self::bytes((string) \ini_get('upload_max_filesize')),
            \max(0, (int) \ini_get('max_file_uploads')),
            $directory !== '' && \is_dir($directory) ? $directory : \sys_get_temp_dir(),
        );
    }

    /** @throws MalformedBodyException */
    public function decodeMultipart(string $body, string $boundary): FormData
    {
        $fieldPairs = [];
        $filePairs = [];
        $uploads = [];
        $temporary = [];
        foreach ($this->parser->parse($body, $boundary) as $part) {
            if (!$part->isFile()) {
                $fieldPairs[] = \rawurlencode($part->name) . '=' . \rawurlencode($part->content);
                continue;
            }
            if (\count($uploads) >= $this->maxFiles) {
                continue; // as PHP does past max_file_uploads
            }
            $upload = $this->store($part, $temporary);
            $filePairs[] = \rawurlencode($part->name) . '=' . \count($uploads);
            $uploads[] = $upload;
        }
        $fields = [];
        if ($fieldPairs !== []) {
            @\parse_str(\implode('&', $fieldPairs), $fields);
        }
        $files = [];
        if ($filePairs !== []) {
            @\parse_str(\implode('&', $filePairs), $files);
            $files = self::placeUploads($files, $uploads);
        }

        return new FormData($fields, $files, $temporary);
    }

    /** @param list<string> $temporary */
    private function store(MultipartPart $part, array &$temporary): UploadedFile
    {
        $filename = (string) $part->filename;
        // PHP keeps the base name only; a path in it is the client's, not ours.
        $clientName = (string) \preg_replace('~^.*[/\\\\]~s', '', $filename);
        $size = \strlen($part->content);
        if ($filename === '' && $size === 0) {
            return new UploadedFile('', 0, \UPLOAD_ERR_NO_FILE, '', '');
        }
        if ($this->maxFileBytes > 0 && $size > $this->maxFileBytes) {
            return new UploadedFile('', 0, \UPLOAD_ERR_INI_SIZE, $clientName, ''); // PHP keeps no type for it either
        }
        $path = @\tempnam($this->directory, 'php');
        if ($path === false || @\file_put_contents($path, $part->content) !== $size) {
            if ($path !== false) {
                @\unlink($path);
            }

            return new UploadedFile('', 0, \UPLOAD_ERR_CANT_WRITE, $clientName, $part->contentType);
        }
        $temporary[] = $path;

        return new UploadedFile($path, $size, \UPLOAD_ERR_OK, $clientName, $part->contentType);
    }

    /**
     * @param array<array-key, mixed> $tree the file fields' names parsed with each file's index as value
     * @param list<UploadedFile> $uploads
     * @return array<array-key, mixed>
     */
    private static function placeUploads(array $tree, array $uploads): array
    {
        foreach ($tree as $key => $node) {
            $tree[$key] = \is_array($node) ? self::placeUploads($node, $uploads) : $uploads[(int) $node];
        }

        return $tree;
    }

    /** php.ini shorthand ("2M") in bytes; 0 for none. */
    private static function bytes(string $value): int
    {
        $value = \trim($value);
        if ($value === '' || !\is_numeric(\rtrim($value, 'kKmMgG'))) {
            return 0;
        }
        $number = (int) $value;

        return match (\strtolower(\substr($value, -1))) {
            'g' => $number << 30,
            'm' => $number << 20,
            'k' => $number << 10,
            default => $number,
        };
    }
}
