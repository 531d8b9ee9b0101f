<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

/**
 * The /status page: one self-contained HTML document (no external assets, no build step) that
 * reads /status.json every second and draws requests/s, latency and loop lag as line charts,
 * with the workers and the database pools as tables.
 */
final class StatusPage
{
    private function __construct()
    {
    }

    public static function html(): string
    {
        return <<<'HTML'
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>Bobbin status</title>
            <style>
              body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #fafafa; }
              h1 { font-size: 1.3em; margin: 0 0 .3em; }
              .cards { display: flex; gap: 1em; flex-wrap: wrap; margin: 1em 0; }
              .card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .6em 1em; min-width: 9em; }
              .card b { display: block; font-size: 1.5em; }
              .charts { display: flex; gap: 1em; flex-wrap: wrap; }
              figure { margin: 0; background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .5em; }
              figcaption { font-size: .9em; color: #555; }
              canvas { display: block; }
              table { border-collapse: collapse; background: #fff; margin-top: 1em; }
              th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: right; }
              th:first-child, td:first-child { text-align: left; }
              #error { color: #b00; }
            </style>
            </head>
            <body>
            <h1>Bobbin</h1>
            <div id="master">…</div>
            <div id="error"></div>
            <div class="cards">
              <div class="card">requests<b id="requests">0</b></div>
              <div class="card">requests/s<b id="rate">0</b></div>
              <div class="card">latency p50 / p99<b id="latency">–</b></div>
              <div class="card">in flight<b id="inflight">0</b></div>
              <div class="card">connections<b id="connections">0</b></div>
            </div>
            <div class="charts">
              <figure><figcaption>requests/s</figcaption><canvas id="chart-rate" width="360" height="140"></canvas></figure>
              <figure><figcaption>latency p99 since start, ms</figcaption><canvas id="chart-latency" width="360" height="140"></canvas></figure>
              <figure><figcaption>worst loop lag of a worker, ms</figcaption><canvas id="chart-lag" width="360" height="140"></canvas></figure>
              <figure><figcaption>PHP heap of all workers, MiB</figcaption><canvas id="chart-memory" width="360" height="140"></canvas></figure>
              <figure><figcaption>database connections in use (all pools)</figcaption><canvas id="chart-pools" width="360" height="140"></canvas></figure>
            </div>
            <table id="workers"><thead><tr><th>worker</th><th>state</th><th>uptime</th><th>requests</th><th>in flight</th><th>heap MiB</th><th>RSS MiB</th><th>loop lag max ms</th></tr></thead><tbody></tbody></table>
            <table id="pools"><thead><tr><th>pool</th><th>open</th><th>idle</th><th>in use</th><th>waiting</th></tr></thead><tbody></tbody></table>
            <script>
            'use strict';
            const series = { rate: [], latency: [], lag: [], memory: [], pools: [] };
            let previous = null;
            function draw(id, values, color) {
              const canvas = document.getElementById(id), g = canvas.getContext('2d');
              const w = canvas.width, h = canvas.height, max = Math.max(1e-9, ...values) * 1.15;
              g.clearRect(0, 0, w, h);
              g.strokeStyle = '#eee'; g.beginPath();
              for (let i = 1; i < 4; i++) { g.moveTo(0, h * i / 4); g.lineTo(w, h * i / 4); }
              g.stroke();
              g.fillStyle = '#777'; g.font = '11px sans-serif'; g.fillText(Math.max(...values, 0) > 0 ? max.toPrecision(3) : '0', 4, 12);
              g.strokeStyle = color; g.lineWidth = 2; g.beginPath();
              const span = Math.max(values.length - 1, 1);
              values.forEach((v, i) => { const x = w * i / span, y = h - 2 - (h - 4) * v / max; i ? g.lineTo(x, y) : g.moveTo(x, y); });
              g.stroke();
            }
            function push(name, value) { series[name].push(value); if (series[name].length > 120) series[name].shift(); }
            function cell(row, text) { const td = document.createElement('td'); td.textContent = text; row.appendChild(td); }
            async function refresh() {
              try {
                const report = await (await fetch('status.json', { cache: 'no-store' })).json();
                const t = report.totals, m = report.master;
                document.getElementById('error').textContent = '';
                document.getElementById('master').textContent = `master ${m.pid}, ${m.phase}, generation ${m.generation}, ${m.address}`;
                document.getElementById('requests').textContent = t.requests;
                document.getElementById('inflight').textContent = t.inFlight;
                document.getElementById('connections').textContent = t.connections;
                if (t.latency) document.getElementById('latency').textContent = `${(t.latency.p50 * 1000).toFixed(1)} / ${(t.latency.p99 * 1000).toFixed(1)} ms`;
                const rate = previous ? Math.max(0, (t.requests - previous.totals.requests) / (report.time - previous.time)) : 0;
                document.getElementById('rate').textContent = rate.toFixed(0);
                push('rate', rate);
                push('latency', t.latency ? t.latency.p99 * 1000 : 0);
                push('lag', Math.max(0, ...report.workers.map(w => w.loopLagMax * 1000)));
                draw('chart-rate', series.rate, '#2a6');
                draw('chart-latency', series.latency, '#36c');
                push('memory', report.workers.reduce((sum, w) => sum + w.heap, 0) / 1048576);
                push('pools', Object.values(report.pools).reduce((sum, p) => sum + (p.inUse || 0), 0));
                draw('chart-lag', series.lag, '#c63');
                draw('chart-memory', series.memory, '#86a');
                draw('chart-pools', series.pools, '#a82');
                const workers = document.querySelector('#workers tbody'); workers.textContent = '';
                for (const w of report.workers) {
                  const row = workers.insertRow();
                  [w.pid, w.state, w.uptime.toFixed(0) + ' s', w.requests, w.inFlight, (w.heap / 1048576).toFixed(1), (w.rss / 1048576).toFixed(1), (w.loopLagMax * 1000).toFixed(1)].forEach(v => cell(row, v));
                }
                const pools = document.querySelector('#pools tbody'); pools.textContent = '';
                for (const [name, p] of Object.entries(report.pools)) {
                  const row = pools.insertRow();
                  [name, p.open || 0, p.idle || 0, p.inUse || 0, p.waiting || 0].forEach(v => cell(row, v));
                }
                previous = report;
              } catch (e) {
                document.getElementById('error').textContent = 'status.json: ' + e;
              }
            }
            refresh();
            setInterval(refresh, 1000);
            </script>
            </body>
            </html>
            HTML;
    }
}
