<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Jobs\Security\JobKeys;

/**
 * --jobs-key-file=FILE or BOBBIN_JOBS_KEY (the key itself): the keys that sign the jobs' messages.
 * Over NATS they are required, the same on every host; the local pool makes its own at each start
 * unless these are given.
 */
final class JobKeysOption
{
    public const HELP = 'file holding the key that signs every job message (at least 32 bytes; a second one, after whitespace, is still accepted during a rotation); or BOBBIN_JOBS_KEY holding the key itself. Required with a nats:// jobs transport, the same on every host; the local job socket otherwise gets a key of its own at each start';

    private function __construct()
    {
    }

    /** @throws UsageException */
    public static function read(string $file): ?JobKeys
    {
        try {
            return JobKeys::configured($file, (string) \getenv('BOBBIN_JOBS_KEY'));
        } catch (\InvalidArgumentException $error) {
            throw new UsageException('--jobs-key-file: ' . $error->getMessage());
        }
    }

    /** @throws UsageException when neither is given */
    public static function require(string $file, string $transportOption): JobKeys
    {
        return self::read($file) ?? throw new UsageException(\sprintf(
            'A nats:// %s needs a key: anyone who can publish on its subjects could otherwise run code in the job workers. '
            . 'Give every host the same one with --jobs-key-file=FILE (mode 600) or BOBBIN_JOBS_KEY; make one with: '
            . 'openssl rand -base64 48 > /etc/bobbin/jobs.key && chmod 600 /etc/bobbin/jobs.key',
            $transportOption,
        ));
    }
}
