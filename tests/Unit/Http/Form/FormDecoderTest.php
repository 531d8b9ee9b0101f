<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Form;

use Bobbin\Http\Form\FormDecoder;
use Bobbin\Http\Form\MultipartParser;
use Bobbin\Http\Message\UploadedFile;
use PHPUnit\Framework\TestCase;

/** Fields nest as in $_POST, files land in temporary files with PHP's errors and limits. */
final class FormDecoderTest extends TestCase
{
    private string $directory;

    protected function setUp(): void
    {
        $this->directory = \sys_get_temp_dir() . '/bobbin-form-' . \bin2hex(\random_bytes(4));
        \mkdir($this->directory);
    }

    protected function tearDown(): void
    {
        foreach ((array) \glob($this->directory . '/*') as $file) {
            @\unlink((string) $file);
        }
        @\rmdir($this->directory);
    }

    private function decoder(int $maxFileBytes = 1000, int $maxFiles = 3): FormDecoder
    {
        return new FormDecoder(new MultipartParser(), $maxFileBytes, $maxFiles, $this->directory);
    }

    /** @param list<array{string, ?string, string}> $parts name, filename, content */
    private static function body(array $parts): string
    {
        $body = '';
        foreach ($parts as [$name, $filename, $content]) {
            $body .= "--B\r\nContent-Disposition: form-data; name=\"$name\"" . ($filename === null ? '' : "; filename=\"$filename\"")
                . "\r\n" . ($filename === null ? '' : "Content-Type: text/plain\r\n") . "\r\n" . $content . "\r\n";
        }

        return $body . "--B--\r\n";
    }

    public function testBracketedFieldNamesNestAsPhpNestsThem(): void
    {
        $form = $this->decoder()->decodeMultipart(self::body([
            ['title', null, 'A'], ['tags[]', null, 'x'], ['tags[]', null, 'y'], ['user[name]', null, 'n'], ['user[roles][]', null, 'r'], ['a.b c', null, 'dots'],
        ]), 'B');

        $expected = [];
        \parse_str('title=A&tags[]=x&tags[]=y&user[name]=n&user[roles][]=r&a.b c=dots', $expected);
        self::assertSame($expected, $form->fields);
        self::assertSame([], $form->files);
    }

    public function testFilesAreWrittenToTemporaryFilesAndRemovedAfterwards(): void
    {
        $form = $this->decoder()->decodeMultipart(self::body([['doc', '../../etc/a.txt', 'content'], ['more[x][]', 'b.txt', 'bb']]), 'B');

        $doc = $form->files['doc'];
        self::assertInstanceOf(UploadedFile::class, $doc);
        self::assertSame([\UPLOAD_ERR_OK, 7, 'a.txt', 'text/plain'], [$doc->getError(), $doc->getSize(), $doc->getClientFilename(), $doc->getClientMediaType()]);
        self::assertSame('content', (string) $doc->getStream());
        self::assertStringStartsWith($this->directory . '/php', $doc->temporaryPath());
        self::assertSame('bb', (string) $form->files['more']['x'][0]->getStream());

        $form->removeTemporaryFiles();

        self::assertFileDoesNotExist($doc->temporaryPath());
        self::assertSame([], \glob($this->directory . '/*'));
    }

    public function testAMovedFileIsLeftWhereTheApplicationPutIt(): void
    {
        $form = $this->decoder()->decodeMultipart(self::body([['doc', 'a.txt', 'kept']]), 'B');
        $target = $this->directory . '/moved.txt';

        $form->files['doc']->moveTo($target);
        $form->removeTemporaryFiles();

        self::assertSame('kept', \file_get_contents($target));
    }

    public function testAFileOverTheLimitIsAnIniSizeErrorWithoutATemporaryFile(): void
    {
        $form = $this->decoder(maxFileBytes: 4)->decodeMultipart(self::body([['big', 'big.bin', '12345'], ['small', 's.bin', '1234']]), 'B');

        self::assertSame(\UPLOAD_ERR_INI_SIZE, $form->files['big']->getError());
        self::assertSame('big.bin', $form->files['big']->getClientFilename());
        self::assertSame(\UPLOAD_ERR_OK, $form->files['small']->getError());
        self::assertCount(1, (array) \glob($this->directory . '/*'));
    }

    public function testAnEmptyFileInputIsNoFile(): void
    {
        $form = $this->decoder()->decodeMultipart(self::body([['none', '', '']]), 'B');

        self::assertSame(\UPLOAD_ERR_NO_FILE, $form->files['none']->getError());
        self::assertSame([], \glob($this->directory . '/*'));
    }

    public function testFilesBeyondTheMaximumCountAreIgnored(): void
    {
        $form = $this->decoder(maxFiles: 2)->decodeMultipart(self::body([['f[]', 'a', '1'], ['f[]', 'b', '2'], ['f[]', 'c', '3']]), 'B');

        self::assertCount(2, $form->files['f']);
        self::assertCount(2, (array) \glob($this->directory . '/*'));
    }
}
