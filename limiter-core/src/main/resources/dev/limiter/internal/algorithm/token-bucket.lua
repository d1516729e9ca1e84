-- token-bucket: capacity B refilled continuously at L/W per microsecond (docs/algorithms.md).
-- Twin: dev.limiter.internal.algorithm.TokenBucket. Assembled by Scripts from the --@include lines.
--
-- KEYS[1]  string of 1 + 2n doubles, little-endian (struct.pack('<d...')), for n limits: t = time of
--          the last change, then per limit x<i> = whole tokens, f<i> = the fraction over W (0 <= f < W),
--          so the bucket holds x + f/W tokens (x < 0: debt taken by waiting callers); whole numbers
--          below 2^53, which a double holds exactly. An absent key (or one of another length) is a full
--          bucket. One string rather than a hash of decimals: GET, struct.unpack and one SET ... PX
--          cost Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md). The key's
--          tail (tb2) differs from that of the hash layout (tb), so that no script reads the other
--          layout during a rolling deploy.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, refill-and-decide, then apply-and-report. Both paths include the
-- same fragments for each limit.

--@include decision-prelude.lua
--@include token-bucket-time-to.lua

local pack, unpack_doubles = struct.pack, struct.unpack

if count == 1 then
  local i, limit, window, burst = 1, tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local stored = redis.call('GET', key)
  local last, x, f = now, nil, nil
  if stored and #stored == 24 then
    last, x, f = unpack_doubles('<ddd', stored)
  end
  local elapsed = (now > last) and (now - last) or 0
  --@include token-bucket-limit.lua
  --@include verdict.lua
  --@include token-bucket-take.lua
  if allowed then
    --@include ttl.lua
    redis.call('SET', key, pack('<ddd', (now > last) and now or last, x, f), 'PX', px)
  end
  --@include reply.lua
end

local doubles = 1 + 2 * count
--@include doubles-read.lua
local last = stored[1] or now
local elapsed = (now > last) and (now - last) or 0

-- Pass 1: refill each limit and weigh the request.
local state = {}
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local x, f = stored[2 * i], stored[2 * i + 1]
  --@include token-bucket-limit.lua
  state[6 * i - 5], state[6 * i - 4], state[6 * i - 3] = limit, window, burst
  state[6 * i - 2], state[6 * i - 1], state[6 * i] = x, f, reset
end
--@include verdict.lua

-- Pass 2: apply the verdict to each limit; the reply's quota.
local values = allowed and {(now > last) and now or last}
for i = 1, count do
  local limit, window, burst = state[6 * i - 5], state[6 * i - 4], state[6 * i - 3]
  local x, f, reset = state[6 * i - 2], state[6 * i - 1], state[6 * i]
  --@include token-bucket-take.lua
  if allowed then
    values[2 * i], values[2 * i + 1] = x, f
  end
end
--@include doubles-write-and-reply.lua
