-- gcra: generic cell rate algorithm, as in redis-cell: emission interval T = W/L, tolerance B*T
-- (docs/algorithms.md). Twin: dev.limiter.internal.algorithm.Gcra. Assembled by Scripts from the
-- --@include lines.
--
-- KEYS[1]  string of 3n + 1 doubles, little-endian (struct.pack('<d...')), for n limits: t, then
--          a<i>, f<i>, l<i> of each limit i. a<i> = whole microseconds of limit i's theoretical
--          arrival time tau, f<i> = its fraction over l<i>, the limit L it was written under
--          (0 <= f < l), so tau = a + f/l (beyond now + B*T: debt taken by waiting callers); t = the
--          latest time of a change, so that a clock going backwards stands still instead of reading as
--          more debt. All are whole numbers below 2^53, which a double holds exactly. An absent key (or
--          one of another length), like tau <= now, is an idle limit. A state written under another
--          limit (a limiter retuned with on-retune: keep) has its fraction rounded up to one over the
--          new L. One string of doubles rather than a hash of decimals: GET, struct.unpack and one
--          SET ... PX cost Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md).
--          The key's tail (gc2) differs from that of the hash layout (gc), so that no script reads the
--          other layout during a rolling deploy.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, decide, then apply-and-report. Both paths include the same
-- fragments for each limit. Fractions over L stay below L, so a sum of two carries at most 1 and
-- ceil(f / L) is 1 exactly when f > 0.

--@include decision-prelude.lua
--@include gcra-arrival.lua

local pack, unpack_doubles = struct.pack, struct.unpack

if count == 1 then
  local i, limit, window, burst = 1, tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local stored = redis.call('GET', key)
  local at, a, f, over_limit = now, nil, nil, nil
  if stored and #stored == 32 then
    local t
    t, a, f, over_limit = unpack_doubles('<dddd', stored)
    if t > now then
      at = t
    end
  end
  a, f = arrival(a, f, over_limit, at, limit)
  --@include gcra-limit.lua
  --@include verdict.lua
  if allowed then
    a, f = na, nf
  end
  --@include gcra-quota.lua
  if allowed then
    --@include ttl.lua
    redis.call('SET', key, pack('<dddd', at, a, f, limit), 'PX', px)
  end
  --@include reply.lua
end

local doubles = 3 * count + 1
--@include doubles-read.lua
local at = stored[1] or now
if now > at then
  at = now
end

-- Pass 1: each limit's tau, and the request weighed.
local state = {}
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local a, f = arrival(stored[3 * i - 1], stored[3 * i], stored[3 * i + 1] or limit, at, limit)
  --@include gcra-limit.lua
  state[5 * i - 4], state[5 * i - 3], state[5 * i - 2], state[5 * i - 1], state[5 * i] = limit, window, burst, a, f
  state[5 * count + 2 * i - 1], state[5 * count + 2 * i] = na, nf
end
--@include verdict.lua

-- Pass 2: apply the verdict to each limit; the reply's quota.
local values = allowed and {at}
for i = 1, count do
  local limit, window, burst, a, f = state[5 * i - 4], state[5 * i - 3], state[5 * i - 2], state[5 * i - 1], state[5 * i]
  if allowed then
    a, f = state[5 * count + 2 * i - 1], state[5 * count + 2 * i]
    values[3 * i - 1], values[3 * i], values[3 * i + 1] = a, f, limit
  end
  --@include gcra-quota.lua
end
--@include doubles-write-and-reply.lua
