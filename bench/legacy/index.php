<?php
/*
 * The legacy experiment's page (bench/run legacy): a plain-PHP script as written for PHP-FPM —
 * superglobals, a blocking pg_* query, HTML with a form — served unchanged by
 * `bin/bobbin serve --legacy` and by nginx + PHP-FPM.
 */

require_once __DIR__ . '/db.php';

$limit = max(1, min(50, (int) ($_GET['limit'] ?? 10)));
$result = pg_query_params(bench_db(), 'SELECT id, number, title FROM aircraft ORDER BY id LIMIT $1', [$limit]);
$rows = pg_fetch_all($result) ?: [];
?>
<!doctype html>
<title>Fleet</title>
<h1>Fleet (<?= count($rows) ?>)</h1>
<ul>
<?php foreach ($rows as $row): ?>
  <li><?= htmlspecialchars($row['number']) ?>: <?= htmlspecialchars($row['title']) ?></li>
<?php endforeach; ?>
</ul>
<form method="post" action="/add"><input name="number"><input name="title"><button>Add</button></form>
