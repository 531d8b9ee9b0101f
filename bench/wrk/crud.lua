-- The aircraft CRUD cycle (shared/contracts/aircraft-api.md) for wrk:
-- POST /aircraft -> GET /aircraft/{id} -> PUT /aircraft/{id} -> DELETE /aircraft/{id},
-- all on one keep-alive connection. Run it with as many threads as connections
-- (wrk -t50 -c50): wrk does not say which connection a response belongs to, so each thread
-- drives exactly one connection and keeps that connection's cycle state.
-- Prints one JSON line at the end: whole cycles completed, cycles failed, seconds.
-- An optional argument after `--` makes the registration numbers unique to this run
-- (bench/run passes one): two runs started within the same second would otherwise collide.

local threads = {}
math.randomseed(os.time())
nonce = tostring(os.time()) .. tostring(math.random(100000, 999999))

function setup(thread)
    thread:set("tid", #threads + 1)
    thread:set("nonce", nonce)
    table.insert(threads, thread)
end

function init(args)
    if args[1] ~= nil then nonce = args[1] end
end

local headers = { ["Content-Type"] = "application/json" }
local step = "post"
local id = nil
local seq = 0
completed = 0
failed = 0

local function body(title)
    return string.format(
        '{"number":"B-%s-%d-%d","title":"%s","serial_number":"95001","assembly_date":"2008-05-19","added_at":"2024-01-31"}',
        nonce, tid, seq, title)
end

function request()
    if step == "post" then
        seq = seq + 1
        return wrk.format("POST", "/aircraft", headers, body("Sukhoi Superjet 100"))
    elseif step == "get" then
        return wrk.format("GET", "/aircraft/" .. id)
    elseif step == "put" then
        return wrk.format("PUT", "/aircraft/" .. id, headers, body("Airbus A320"))
    else
        return wrk.format("DELETE", "/aircraft/" .. id)
    end
end

local function fail()
    failed = failed + 1
    step = "post"
end

function response(status, hdrs, resp_body)
    if step == "post" then
        if status ~= 201 then return fail() end
        id = string.match(resp_body, '"id":(%d+)')
        if id == nil then return fail() end
        step = "get"
    elseif step == "get" then
        if status ~= 200 then return fail() end
        step = "put"
    elseif step == "put" then
        if status ~= 200 then return fail() end
        step = "delete"
    else
        if status ~= 204 then return fail() end
        completed = completed + 1
        step = "post"
    end
end

function done(summary, latency, requests)
    local total_completed, total_failed = 0, 0
    for _, thread in ipairs(threads) do
        total_completed = total_completed + thread:get("completed")
        total_failed = total_failed + thread:get("failed")
    end
    io.write(string.format(
        'RESULT {"cycles":%d,"failed_cycles":%d,"seconds":%.3f,"requests":%d,"socket_errors":%d,"non2xx":%d,"p50_ms":%.3f,"p99_ms":%.3f}\n',
        total_completed, total_failed, summary.duration / 1e6, summary.requests,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
        summary.errors.status, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
