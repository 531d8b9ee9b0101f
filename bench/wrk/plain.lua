-- A plain GET benchmark that prints the same RESULT line as crud.lua (requests, errors, latency).
function done(summary, latency, requests)
    io.write(string.format(
        'RESULT {"requests":%d,"seconds":%.3f,"socket_errors":%d,"non2xx":%d,"p50_ms":%.3f,"p99_ms":%.3f}\n',
        summary.requests, summary.duration / 1e6,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
        summary.errors.status, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
