<?php

declare(strict_types=1);

// TlsTerminationTest's application: the scheme and HTTPS parameter it saw, and ?n= bytes of body.
use Bobbin\Http\Message\Response;
use Psr\Http\Message\ServerRequestInterface;

return static function (ServerRequestInterface $request): Response {
    $size = \min((int) ($request->getQueryParams()['n'] ?? 0), 8 << 20);

    return new Response(200, ['Content-Type' => 'text/plain'], \sprintf('%s %s|', $request->getUri()->getScheme(), $request->getServerParams()['HTTPS'] ?? '-') . \str_repeat('abcdefghij', \intdiv($size, 10)));
};
