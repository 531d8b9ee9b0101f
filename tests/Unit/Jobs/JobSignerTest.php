<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Jobs;

use Bobbin\Jobs\Security\JobAuthenticationException;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Security\RefusalReason;
use PHPUnit\Framework\TestCase;

/** Every job message is signed for its use and its deadline; anything else is refused before it is read. */
final class JobSignerTest extends TestCase
{
    private const OLD = 'old-key-0123456789abcdef0123456789abcdef';
    private const NEW = 'new-key-0123456789abcdef0123456789abcdef';

    public function testATaskOpensForTheReplySubjectItWasSignedFor(): void
    {
        $signer = new JobSigner(new JobKeys(self::NEW));

        self::assertSame('T-body', $signer->openTask($signer->sealTask('T-body', '_INBOX.a.1', \microtime(true) + 5), '_INBOX.a.1'));
    }

    public function testTheSignatureIsHmacSha256OfTheContextTheHeaderAndTheBody(): void
    {
        $sealed = (new JobSigner(new JobKeys(self::NEW)))->sealTask('body', 'r', 1e9);

        $header = \substr($sealed, 0, 13);
        self::assertSame("\x01" . JobKeys::idOf(self::NEW) . \pack('e', 1e9), $header);
        self::assertSame(\hash_hmac('sha256', "\x06\x00task\0r" . $header . 'body', self::NEW, true), \substr($sealed, 13, 32));
        self::assertSame('body', \substr($sealed, 45));
    }

    public function testAnUnsignedMessageIsRefused(): void
    {
        $this->assertRefused(RefusalReason::Unsigned, static fn (JobSigner $s) => $s->openTask('T' . \str_repeat("\0", 60), ''));
    }

    public function testAMessageSignedWithAnotherKeyIsRefusedNamingBothKeyIds(): void
    {
        $sealed = (new JobSigner(new JobKeys(self::OLD)))->sealTask('x', '', \microtime(true) + 5);

        $refusal = $this->assertRefused(RefusalReason::UnknownKey, static fn (JobSigner $s) => $s->openTask($sealed, ''));
        self::assertStringContainsString(\bin2hex(JobKeys::idOf(self::OLD)), $refusal->getMessage());
        self::assertStringContainsString(\bin2hex(JobKeys::idOf(self::NEW)), $refusal->getMessage());
        self::assertStringNotContainsString(self::NEW, $refusal->getMessage());
    }

    public function testChangingAnyByteAfterTheKeyIdIsRefused(): void
    {
        $signer = new JobSigner(new JobKeys(self::NEW));
        $sealed = $signer->sealTask('a task body', 'r', \microtime(true) + 60);

        for ($i = 5; $i < \strlen($sealed); $i++) {
            $altered = $sealed;
            $altered[$i] = \chr(\ord($altered[$i]) ^ 0x01);
            try {
                $signer->openTask($altered, 'r');
                self::fail("byte $i was changed and the message still opened");
            } catch (JobAuthenticationException $refused) {
                self::assertSame(RefusalReason::BadSignature, $refused->reason, "byte $i");
            }
        }
    }

    public function testAnAuthenticMessagePastItsDeadlineIsRefused(): void
    {
        $signer = new JobSigner(new JobKeys(self::NEW));
        $sealed = $signer->sealTask('x', '', 1000.0);

        self::assertSame('x', $signer->openTask($sealed, '', 1000.0));
        $this->assertRefused(RefusalReason::Expired, static fn (JobSigner $s) => $s->openTask($sealed, '', 1000.001));
    }

    public function testATaskSentWithAnotherReplySubjectIsRefused(): void
    {
        $sealed = (new JobSigner(new JobKeys(self::NEW)))->sealTask('x', '_INBOX.caller.1', \microtime(true) + 5);

        $this->assertRefused(RefusalReason::BadSignature, static fn (JobSigner $s) => $s->openTask($sealed, '_INBOX.attacker.1'));
    }

    public function testAnAnswerForOneTaskDoesNotPassAsAnothersNorAsATask(): void
    {
        $sealed = (new JobSigner(new JobKeys(self::NEW)))->sealReply('task-one-id-0001', 'Ri:1;', \microtime(true) + 5);

        $this->assertRefused(RefusalReason::BadSignature, static fn (JobSigner $s) => $s->openReply('task-two-id-0002', $sealed));
        $this->assertRefused(RefusalReason::BadSignature, static fn (JobSigner $s) => $s->openTask($sealed, ''));
        $this->assertRefused(RefusalReason::BadSignature, static fn (JobSigner $s) => $s->openCancel($sealed));
    }

    public function testDuringARotationTheFirstKeySignsAndBothAreAccepted(): void
    {
        $rotating = new JobSigner(new JobKeys(self::NEW, self::OLD));
        $fromOld = (new JobSigner(new JobKeys(self::OLD)))->sealTask('old', '', \microtime(true) + 5);
        $fromNew = (new JobSigner(new JobKeys(self::NEW)))->sealTask('new', '', \microtime(true) + 5);

        self::assertSame('old', $rotating->openTask($fromOld, ''));
        self::assertSame('new', $rotating->openTask($fromNew, ''));
        self::assertSame(JobKeys::idOf(self::NEW), \substr($rotating->sealTask('x', '', 1e9), 1, 4), 'the first key signs');
        $this->assertRefused(RefusalReason::UnknownKey, static fn (JobSigner $s) => $s->openTask($fromOld, ''));
    }

    /** @param \Closure(JobSigner): mixed $open */
    private function assertRefused(RefusalReason $reason, \Closure $open): JobAuthenticationException
    {
        try {
            $open(new JobSigner(new JobKeys(self::NEW)));
        } catch (JobAuthenticationException $refused) {
            self::assertSame($reason, $refused->reason, $refused->getMessage());

            return $refused;
        }
        self::fail('the message was not refused');
    }
}
