<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

/**
 * Debian's WordPress (/usr/share/wordpress) in a temporary document root of its own, with its own
 * wp-config.php and database, so nothing is written to /etc or /usr/share: wp-admin and the
 * top-level scripts are copied (WordPress finds ABSPATH, hence wp-config.php, from __DIR__,
 * which resolves symlinks), wp-includes and the themes and plugins are symlinked, uploads is a
 * directory of its own.
 */
final class WordPressSite
{
    public const DEBIAN = '/usr/share/wordpress';

    private function __construct(public readonly string $root)
    {
    }

    public static function isInstalled(): bool
    {
        return \is_file(self::DEBIAN . '/wp-settings.php') && \is_dir(self::DEBIAN . '/wp-content/themes/twentytwentythree');
    }

    /**
     * @param bool $followHost the site's address is the request's Host (WP_HOME, WP_SITEURL), not
     *                         the one of the install: one install served on several ports at once
     *                         (bench/legacy/wordpress.php), without canonical redirects between them
     */
    public static function create(string $directory, MysqlAccount $mysql, string $database, bool $followHost = false): self
    {
        $root = $directory . '/wordpress';
        \mkdir($root . '/wp-content/uploads', 0o777, true);
        self::run('cp -a ' . \escapeshellarg(self::DEBIAN . '/wp-admin') . ' ' . \escapeshellarg($root . '/wp-admin'));
        foreach (\glob(self::DEBIAN . '/*.php') ?: [] as $file) {
            if (\basename($file) !== 'wp-config.php') {
                \copy($file, $root . '/' . \basename($file));
            }
        }
        \symlink(self::DEBIAN . '/wp-includes', $root . '/wp-includes');
        foreach (['themes', 'plugins', 'languages'] as $content) {
            \symlink(self::DEBIAN . '/wp-content/' . $content, $root . '/wp-content/' . $content);
        }
        $constants = [
            'DB_NAME' => $database, 'DB_USER' => $mysql->user, 'DB_PASSWORD' => $mysql->password,
            'DB_HOST' => $mysql->server, 'DB_CHARSET' => 'utf8mb4', 'DB_COLLATE' => '',
            // Nothing leaves the machine (update checks, dashboard news), no loopback cron request.
            'WP_HTTP_BLOCK_EXTERNAL' => true, 'DISABLE_WP_CRON' => true, 'AUTOMATIC_UPDATER_DISABLED' => true,
            'WP_DEBUG' => false,
        ];
        foreach (['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'] as $key) {
            $constants[$key] = \bin2hex(\random_bytes(32));
        }
        $config = "<?php\n// Written by the test (WordPressSite); removed after it.\n";
        foreach ($constants as $name => $value) {
            $config .= \sprintf("define(%s, %s);\n", \var_export($name, true), \var_export($value, true));
        }
        if ($followHost) {
            $config .= "define('WP_HOME', 'http://' . \$_SERVER['HTTP_HOST']);\ndefine('WP_SITEURL', WP_HOME);\n";
        }
        $config .= "\$table_prefix = 'wp_';\nif (!defined('ABSPATH')) {\n    define('ABSPATH', __DIR__ . '/');\n}\nrequire_once ABSPATH . 'wp-settings.php';\n";
        \file_put_contents($root . '/wp-config.php', $config);

        return new self($root);
    }

    private static function run(string $command): void
    {
        \exec($command . ' 2>&1', $output, $status);
        if ($status !== 0) {
            throw new \RuntimeException("$command failed: " . \implode("\n", $output));
        }
    }
}
