-- fixed-window: at most L permits per window, windows aligned to the epoch (docs/algorithms.md).
-- Twin: dev.limiter.internal.algorithm.FixedWindow. Assembled by Scripts from the --@include lines.
--
-- KEYS[1]  string of 2n doubles, little-endian (struct.pack('<d...')), for n limits: w<i> = index of
--          the window limit i counts, n<i> = permits taken in it; whole numbers below 2^53, which a
--          double holds exactly. An absent key (or one of another length) has taken nothing. One
--          string of doubles rather than a hash of decimals: GET, struct.unpack and one SET ... PX cost
--          Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md). The key's tail
--          (fw2) differs from that of the hash layout (fw), so that no script reads the other layout
--          during a rolling deploy.
-- ARGV[4]  unused
-- ARGV[3i+3] window of limit i in microseconds; for a calendar window, its window starts around now
--          instead, comma-separated (fixed-window-current.lua), and w<i> is the start of the window
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, decide, then apply-and-report. Both paths include the same
-- fragments for each limit.

--@include decision-prelude.lua

local pack, unpack_doubles = struct.pack, struct.unpack

if count == 1 then
  local i, limit, window = 1, tonumber(ARGV[5]), tonumber(ARGV[6])
  local stored = redis.call('GET', key)
  local stored_index, stored_used = nil, nil
  if stored and #stored == 16 then
    stored_index, stored_used = unpack_doubles('<dd', stored)
  end
  --@include fixed-window-limit.lua
  --@include verdict.lua
  if allowed then
    used = used + permits
  end
  --@include fixed-window-quota.lua
  if allowed then
    --@include ttl.lua
    redis.call('SET', key, pack('<dd', index, used), 'PX', px)
  end
  --@include reply.lua
end

local doubles = 2 * count
--@include doubles-read.lua

-- Pass 1: each limit's window, and the request weighed.
local state = {}
for i = 1, count do
  local limit, window = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3])
  local stored_index, stored_used = stored[2 * i - 1], stored[2 * i]
  --@include fixed-window-limit.lua
  state[4 * i - 3], state[4 * i - 2], state[4 * i - 1], state[4 * i] = limit, index, used, window_end
end
--@include verdict.lua

-- Pass 2: apply the verdict to each limit; the reply's quota.
local values = allowed and {}
for i = 1, count do
  local limit, index, used, window_end = state[4 * i - 3], state[4 * i - 2], state[4 * i - 1], state[4 * i]
  if allowed then
    used = used + permits
    values[2 * i - 1], values[2 * i] = index, used
  end
  --@include fixed-window-quota.lua
end
--@include doubles-write-and-reply.lua
