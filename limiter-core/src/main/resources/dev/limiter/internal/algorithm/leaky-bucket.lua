-- leaky-bucket: capacity B whose level drains continuously at L/W per microsecond (docs/algorithms.md).
-- Twin: dev.limiter.internal.algorithm.LeakyBucket. Assembled by Scripts from the --@include lines.
--
-- KEYS[1]  string of 1 + 2n doubles, little-endian (struct.pack('<d...')), for n limits: t = time of
--          the last change, then per limit v<i> = whole permits in the bucket, f<i> = the fraction over
--          W (0 <= f < W), so the level is v + f/W (above B: debt taken by waiting callers); whole
--          numbers below 2^53, which a double holds exactly. An absent key (or one of another length)
--          is an empty bucket. One string rather than a hash of decimals: GET, struct.unpack and one
--          SET ... PX cost Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md).
--          The key's tail (lb2) differs from that of the hash layout (lb), so that no script reads the
--          other layout during a rolling deploy.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, drain-and-decide, then apply-and-report. Both paths include the
-- same fragments for each limit.

--@include decision-prelude.lua
--@include leaky-bucket-time-to.lua

local pack, unpack_doubles = struct.pack, struct.unpack

if count == 1 then
  local i, limit, window, burst = 1, tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local stored = redis.call('GET', key)
  local last, v, f = now, nil, nil
  if stored and #stored == 24 then
    last, v, f = unpack_doubles('<ddd', stored)
  end
  local elapsed = (now > last) and (now - last) or 0
  --@include leaky-bucket-limit.lua
  --@include verdict.lua
  --@include leaky-bucket-take.lua
  if allowed then
    --@include ttl.lua
    redis.call('SET', key, pack('<ddd', (now > last) and now or last, v, f), 'PX', px)
  end
  --@include reply.lua
end

local doubles = 1 + 2 * count
--@include doubles-read.lua
local last = stored[1] or now
local elapsed = (now > last) and (now - last) or 0

-- Pass 1: drain each limit and weigh the request.
local state = {}
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local v, f = stored[2 * i], stored[2 * i + 1]
  --@include leaky-bucket-limit.lua
  state[6 * i - 5], state[6 * i - 4], state[6 * i - 3] = limit, window, burst
  state[6 * i - 2], state[6 * i - 1], state[6 * i] = v, f, reset
end
--@include verdict.lua

-- Pass 2: apply the verdict to each limit; the reply's quota.
local values = allowed and {(now > last) and now or last}
for i = 1, count do
  local limit, window, burst = state[6 * i - 5], state[6 * i - 4], state[6 * i - 3]
  local v, f, reset = state[6 * i - 2], state[6 * i - 1], state[6 * i]
  --@include leaky-bucket-take.lua
  if allowed then
    values[2 * i], values[2 * i + 1] = v, f
  end
end
--@include doubles-write-and-reply.lua
