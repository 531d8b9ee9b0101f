-- The embedded Tarantool of this checkout (scripts/tarantool): started with its settings in the
-- environment, it configures the server and (re)creates what the tests and the benchmark use.
-- Nothing here is durable: wal_mode = 'none', as for a benchmark of the client.
local fiber = require('fiber')

local dir = assert(os.getenv('BOBBIN_TARANTOOL_DIR'), 'BOBBIN_TARANTOOL_DIR not set')
local port = assert(os.getenv('BOBBIN_TARANTOOL_PORT'), 'BOBBIN_TARANTOOL_PORT not set')
local admin = assert(os.getenv('BOBBIN_TARANTOOL_ADMIN'), 'BOBBIN_TARANTOOL_ADMIN not set')

box.cfg{
    listen = '127.0.0.1:' .. port,
    work_dir = dir,
    memtx_dir = dir,
    wal_dir = dir,
    wal_mode = 'none',
    readahead = 1024 * 1024,
    memtx_memory = 512 * 1024 * 1024, -- room for the differential suite's large random tuples beside the rest
    net_msg_max = 4096,
    log = dir .. '/tarantool.log',
    pid_file = dir .. '/tarantool.pid',
    background = true,
}

-- The administrator's console (Lua, text protocol) on a unix socket: scripts/tarantool console.
require('console').listen('unix/:' .. admin)

box.once('bobbin-users', function()
    box.schema.user.create('bobbin', {password = 'bobbin'})
    -- The tests create and drop spaces (schema changes) and run Lua with eval.
    box.schema.user.grant('bobbin', 'super')
end)

-- The benchmark's space; the benchmark recreates it (bench_reset) before each run.
box.schema.space.create('bench', {
    if_not_exists = true,
    format = {{name = 'id', type = 'unsigned'}, {name = 'value', type = 'string'}},
})
box.space.bench:create_index('primary', {if_not_exists = true, parts = {'id'}})

-- Drops and recreates the benchmark's space (memtx), filled with `count` tuples {id, 'tuple_' .. id}.
function bench_reset(count)
    if box.space.bench ~= nil then
        box.space.bench:drop()
    end
    local space = box.schema.space.create('bench', {
        format = {{name = 'id', type = 'unsigned'}, {name = 'value', type = 'string'}},
    })
    space:create_index('primary', {parts = {'id'}})
    box.begin()
    for id = 1, count do
        space:insert({id, 'tuple_' .. id})
    end
    box.commit()
    return count
end

-- What the benchmark's call requests run: one select by key.
function bench_get(id)
    return box.space.bench:get(id)
end

-- Answers after a pause: many of these on one connection come back out of order.
function sleep_echo(value, seconds)
    fiber.sleep(seconds)
    return value
end

-- Sends `count` out-of-band messages (IPROTO_CHUNK) to the caller before its answer.
function push_messages(count)
    for i = 1, count do
        box.session.push({i, 'message ' .. i})
    end
    return 'done'
end
