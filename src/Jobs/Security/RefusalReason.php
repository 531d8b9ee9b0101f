<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Security;

/** Why a job message was refused before anything in it was decoded. */
enum RefusalReason: string
{
    /** Too short to carry a signature, or of an unknown version: not a signed job message. */
    case Unsigned = 'unsigned';
    /** Signed with a key this side does not have (another deployment, a rotation not rolled out). */
    case UnknownKey = 'unknown_key';
    /** The signature does not match: altered, or signed for another task or reply subject. */
    case BadSignature = 'bad_signature';
    /** Authentic but past its deadline: a replay, or a message that waited too long. */
    case Expired = 'expired';
}
