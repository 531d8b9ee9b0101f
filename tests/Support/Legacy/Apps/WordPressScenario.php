<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

/**
 * What issue 37 asks of WordPress, over HTTP as a browser without JavaScript does it: the
 * install wizard, an administrator's login, a post created through the admin form with its
 * nonce, the post viewed, the logout; meanwhile, an anonymous visitor whose requests run at the
 * same time as the administrator's (two cookie jars) and who comments on the post. Every page
 * the visitor gets is checked for any sign of a logged-in user.
 */
final class WordPressScenario
{
    public const TITLE = 'Written through the admin form';
    public const COMMENT = 'A visitor was here';
    private const PASSWORD = 'a long enough password 37';

    private readonly Browser $admin;
    private readonly Browser $visitor;

    public function __construct(private readonly string $base)
    {
        $this->admin = new Browser('admin', $base);
        $this->visitor = new Browser('visitor', $base, static function (Page $page): void {
            self::anonymous($page, 'a page the visitor got');
        });
    }

    /** The administrator's cookies once logged in, as a Cookie header: for a load generator. */
    public function adminCookieHeader(): string
    {
        return $this->admin->cookieHeader();
    }

    /** @return list<array{string, string, string, int, string, list<string>}> both browsers' responses, in order */
    public function run(): array
    {
        $this->install();
        $this->logIn();
        $postId = $this->createPost();
        $permalink = $this->viewAndLogOut($postId);
        $this->comment($postId, $permalink);

        return [...$this->admin->transcript(), ...$this->visitor->transcript()];
    }

    /** The install wizard, over HTTP (also bench/legacy/wordpress.php's set-up). */
    public function install(): void
    {
        self::expect(302, $this->visitor->open('/'), 'a site not installed sends to the wizard');
        self::expect(200, $this->admin->open('/wp-admin/install.php'), 'the wizard\'s language step');
        self::expect(200, $this->admin->open('/wp-admin/install.php?step=1', ['language' => '']), 'the wizard\'s form');
        $done = $this->admin->open('/wp-admin/install.php?step=2', [
            'weblog_title' => 'Bobbin legacy', 'user_name' => 'admin', 'admin_password' => self::PASSWORD,
            'admin_password2' => self::PASSWORD, 'pw_weak' => 'on', 'admin_email' => 'admin@example.com',
            'blog_public' => '0', 'language' => '', 'Submit' => 'Install WordPress',
        ]);
        self::expect(200, $done, 'installing');
        self::contains('Success!', $done, 'installing');
    }

    /** The administrator's login, a visitor's requests beside it (also bench/legacy/wordpress.php's set-up). */
    public function logIn(): void
    {
        // Both at once: the visitor's front page while the administrator opens the login form.
        $form = $this->admin->start('/wp-login.php');
        $front = $this->visitor->start('/');
        self::expect(200, $form->page(), 'the login form');
        self::anonymous($front->page(), 'the front page');
        $login = $this->admin->start('/wp-login.php', [
            'log' => 'admin', 'pwd' => self::PASSWORD, 'wp-submit' => 'Log In',
            'redirect_to' => $this->base . '/wp-admin/', 'testcookie' => '1',
        ]);
        $dashboard = $this->visitor->start('/wp-admin/');
        self::expect(302, $login->page(), 'logging in');
        self::anonymous($dashboard->page(), 'the dashboard, anonymously', 302);
        $page = $this->admin->open('/wp-admin/');
        self::expect(200, $page, 'the dashboard');
        self::contains('id="wpadminbar"', $page, 'the dashboard');
    }

    private function createPost(): int
    {
        $editor = $this->admin->open('/wp-admin/post-new.php');
        self::expect(200, $editor, 'the editor');
        $postId = (int) $editor->field('post_ID');
        $save = $this->admin->start('/wp-admin/post.php', [
            '_wpnonce' => $editor->field('_wpnonce'), 'user_ID' => $editor->field('user_ID'),
            'action' => 'editpost', 'originalaction' => 'editpost', 'post_type' => 'post',
            'post_ID' => (string) $postId, 'post_title' => self::TITLE,
            'content' => 'Its body, saved by a form post.', 'comment_status' => 'open', 'ping_status' => 'open',
            'publish' => 'Publish', 'post_status' => 'publish', 'visibility' => 'public',
        ]);
        $adminArea = $this->visitor->start('/wp-admin/post-new.php');
        self::expect(302, $save->page(), 'publishing');
        self::anonymous($adminArea->page(), 'the editor, anonymously', 302);

        return $postId;
    }

    /** @return string the post's pretty permalink (the front controller serves it) */
    private function viewAndLogOut(int $postId): string
    {
        $short = $this->admin->open("/?p=$postId");
        self::expect(301, $short, 'the post by its id: to its permalink');
        $mine = $this->admin->start($short->location);
        $theirs = $this->visitor->start($short->location);
        $post = $mine->page();
        self::expect(200, $post, 'the post, logged in');
        self::contains(self::TITLE, $post, 'the post, logged in');
        self::contains('id="wpadminbar"', $post, 'the post, logged in');
        self::anonymous($theirs->page(), 'the post, anonymously', 200);
        self::contains(self::TITLE, $theirs->page(), 'the post, anonymously');
        $logout = $this->admin->open($post->link('~action=logout~'));
        self::expect(302, $logout, 'logging out');
        $after = $this->admin->open('/wp-admin/');
        self::anonymous($after, 'the dashboard after logging out', 302);

        return $short->location;
    }

    private function comment(int $postId, string $permalink): void
    {
        $post = $this->visitor->open($permalink);
        self::anonymous($post, 'the post before commenting');
        self::contains('id="commentform"', $post, 'the post: comments are open');
        $sent = $this->visitor->open('/wp-comments-post.php', [
            'comment_post_ID' => (string) $postId, 'comment_parent' => '0', 'author' => 'Visitor',
            'email' => 'visitor@example.com', 'url' => '', 'comment' => self::COMMENT,
            'wp-comment-cookies-consent' => 'yes', 'submit' => 'Post Comment',
        ]);
        self::expect(302, $sent, 'commenting');
        self::anonymous($sent, 'commenting');
        // Held for moderation (a first comment), shown to its author through the redirect's hash.
        $shown = $this->visitor->open($sent->location);
        self::anonymous($shown, 'the post after commenting');
        self::contains(self::COMMENT, $shown, 'the post after commenting');
    }

    /** A page an anonymous client got: nothing of a logged-in user in it. */
    private static function anonymous(Page $page, string $what, ?int $status = null): void
    {
        if ($status !== null) {
            self::expect($status, $page, $what);
        }
        if (\str_contains($page->body, 'id="wpadminbar"') || \preg_match('~<body[^>]*class="[^"]*\blogged-in\b~', $page->body) === 1
            || \str_contains($page->body, 'action=logout') || \str_contains($page->body, 'Howdy,')) {
            throw new ScenarioFailure("$what: an anonymous client got a logged-in page");
        }
        // Into the admin area, other than to the install wizard of a site not yet installed.
        if (\in_array($page->status, [301, 302], true) && \str_contains($page->location, '/wp-admin/')
            && !\str_contains($page->location, 'wp-login.php') && !\str_contains($page->location, 'install.php')) {
            throw new ScenarioFailure("$what: an anonymous client was sent into the admin area ({$page->location})");
        }
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
            throw new ScenarioFailure("$what: no \"$needle\" in the page\n" . \substr(\strip_tags($page->body), 0, 1500));
        }
    }
}
