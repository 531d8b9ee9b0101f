<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

/**
 * What issue 37 asks of Adminer (Debian's /usr/share/adminer/adminer.php): log in to MariaDB,
 * run a query, browse a table, log out — while an anonymous client asks for the same pages at
 * the same time and must get the login form, never the data.
 */
final class AdminerScenario
{
    public const TABLE = 'notes';
    public const ROW = 'a row only a logged-in user sees';
    /** SQL that makes the table to browse, for MysqlAccount::createDatabase(). */
    public const SETUP = [
        'CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(100))',
        "INSERT INTO notes VALUES (1, 'a row only a logged-in user sees'), (2, 'another')",
    ];

    private readonly Browser $user;
    private readonly Browser $anonymous;

    public function __construct(string $base, private readonly MysqlAccount $mysql, private readonly string $database)
    {
        $this->user = new Browser('user', $base);
        $this->anonymous = new Browser('anonymous', $base, static function (Page $page): void {
            self::loggedOut($page, 'a page the anonymous client got');
        });
    }

    /** @return list<array{string, string, string, int, string, list<string>}> */
    public function run(): array
    {
        $form = $this->user->start('/adminer.php');
        $theirs = $this->anonymous->start('/adminer.php');
        self::expect(200, $form->page(), 'the login form');
        self::loggedOut($theirs->page(), 'the login form, anonymously');

        $login = $this->user->open('/adminer.php', [
            'auth[driver]' => 'server', 'auth[server]' => $this->mysql->server, 'auth[username]' => $this->mysql->user,
            'auth[password]' => $this->mysql->password, 'auth[db]' => $this->database,
        ]);
        self::expect(302, $login, 'logging in');
        $home = $login->location;
        $query = '?' . (string) \parse_url($home, \PHP_URL_QUERY);

        $database = $this->user->start($home);
        $theirs = $this->anonymous->start($home);
        self::expect(200, $database->page(), 'the database');
        self::contains('>' . self::TABLE . '<', $database->page(), 'the database');
        self::loggedOut($theirs->page(), 'the database, anonymously');

        $editor = $this->user->open('/adminer.php' . $query . '&sql=');
        self::expect(200, $editor, 'the SQL command page');
        $result = $this->user->start('/adminer.php' . $query . '&sql=', [
            'query' => 'SELECT body, id * 37 AS product FROM notes ORDER BY id', 'limit' => '', 'token' => $editor->field('token'),
        ]);
        $theirs = $this->anonymous->start('/adminer.php' . $query . '&sql=', ['query' => 'SELECT body FROM notes', 'token' => 'guess']);
        self::expect(200, $result->page(), 'running a query');
        self::contains('<td>74', $result->page(), 'running a query');
        self::contains(self::ROW, $result->page(), 'running a query');
        self::loggedOut($theirs->page(), 'running a query, anonymously');

        $browse = $this->user->start('/adminer.php' . $query . '&select=' . self::TABLE);
        $theirs = $this->anonymous->start('/adminer.php' . $query . '&select=' . self::TABLE);
        $page = $browse->page();
        self::expect(200, $page, 'browsing the table');
        self::contains(self::ROW, $page, 'browsing the table');
        self::loggedOut($theirs->page(), 'browsing the table, anonymously');

        $logout = $this->user->open('/adminer.php' . $query, ['logout' => 'Logout', 'token' => $page->field('token')]);
        self::expect(302, $logout, 'logging out');
        self::loggedOut($this->user->open('/adminer.php' . $query . '&select=' . self::TABLE), 'browsing after logging out');

        return [...$this->user->transcript(), ...$this->anonymous->transcript()];
    }

    /** A page for a client that is not logged in: the login form, nothing of the database. */
    private static function loggedOut(Page $page, string $what): void
    {
        if (\str_contains($page->body, self::ROW) || \str_contains($page->body, 'name="logout"') || \str_contains($page->body, '>' . self::TABLE . '<')) {
            throw new ScenarioFailure("$what: a client that is not logged in got a logged-in page");
        }
        self::contains('name="auth[username]"', $page, $what);
    }

    private static function expect(int $status, Page $page, string $what): void
    {
        if ($page->status !== $status) {
            throw new ScenarioFailure(\sprintf("%s: status %d, expected %d (Location: %s)\n%s", $what, $page->status, $status, $page->location, \substr(\strip_tags($page->body), 0, 1500)));
        }
    }

    private static function contains(string $needle, Page $page, string $what): void
    {
        if (!\str_contains($page->body, $needle)) {
            throw new ScenarioFailure("$what: no \"$needle\" in the page\n" . \substr(\strip_tags($page->body), 0, 3000));
        }
    }
}
