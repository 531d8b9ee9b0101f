<?php

// The front controller of a small multi-file application (DocumentRootTest, LegacyDocumentRootTest).
require __DIR__ . '/lib/common.php';
report('front');
