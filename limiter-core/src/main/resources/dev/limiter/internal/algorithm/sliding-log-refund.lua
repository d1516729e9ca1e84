-- sliding-log refund: drops the newest permits logged, up to the permits given back, from entries
-- that still count under the longest window (docs/algorithms.md). Twin:
-- dev.limiter.internal.algorithm.SlidingLog#refund. Assembled by Scripts from the --@include lines.
--
-- KEYS[1]  sorted set: score = time, member = total, time, fits after, limit and cost, packed as in
--          sliding-log.lua
-- ARGV[2]  permits to give back, at least 1
-- ARGV[3]  unused
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- The log is read at standing = max(now, newest entry time), as a decision reads it. An entry whose
-- cost is all given back is removed; one given back in part keeps its time with a smaller cost (it
-- is the newest entry, so its smaller total renames no other). A key with nothing to give back is
-- left as it is: nothing is written. A key with no entry counting after the refund is deleted, the
-- same as an absent one. Each entry holds at least one permit, so this reads at most permits entries.
-- The entry left newest by a refund has its rejection hint cleared: the hint was written for the log
-- as it stood when that entry was logged, and the decision script trusts it only while nothing else
-- changed the log.

--@include decision-prelude.lua

local ENTRY = '>I6I7I6I4I4'

-- An entry with no rejection hint.
local function member(total, time, cost)
  return struct.pack(ENTRY, total, time, 0, 0, cost)
end

local function total_of(m)
  return (struct.unpack(ENTRY, m))
end

local function cost_of(m)
  local _, _, _, _, cost = struct.unpack(ENTRY, m)
  return cost
end

local function score(t)
  return format('%d', t)
end

local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
local standing = now
if newest[2] and tonumber(newest[2]) > now then
  standing = tonumber(newest[2])
end
local since = standing - tonumber(ARGV[3 * count + 3])

-- Permits counting under each limit before the refund.
local total = newest[1] and total_of(newest[1]) or 0
local used = {}
for i = 1, count do
  local oldest = redis.call('ZRANGEBYSCORE', key, '(' .. score(standing - tonumber(ARGV[3 * i + 3])), '+inf', 'LIMIT', 0, 1)
  used[i] = oldest[1] and (total - total_of(oldest[1]) + cost_of(oldest[1])) or 0
end

-- From the newest entry back, while it still counts under the longest window.
local left = permits
local given = 0
while left > 0 do
  local entry = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if not entry[1] or tonumber(entry[2]) <= since then
    break
  end
  local cost = cost_of(entry[1])
  redis.call('ZREM', key, entry[1])
  if cost > left then
    redis.call('ZADD', key, entry[2], member(total_of(entry[1]) - left, entry[2], cost - left))
    given = given + left
    left = 0
  else
    given = given + cost
    left = left - cost
  end
end

local newest_time = tonumber(newest[2])
if given > 0 then
  local entry = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  newest_time = tonumber(entry[2])
  if entry[1] then
    local kept, time, fits_after, _, cost = struct.unpack(ENTRY, entry[1])
    if fits_after > 0 then
      redis.call('ZREM', key, entry[1])
      redis.call('ZADD', key, entry[2], member(kept, time, cost))
    end
  end
end
for i = 1, count do
  -- The permits given back are the newest: under every limit that counted them.
  used[i] = math.max(0, used[i] - given)
  local remaining = tonumber(ARGV[3 * i + 2]) - used[i]
  -- A limit with a permit counting has the newest entry counting.
  local reset = (used[i] > 0) and (newest_time + tonumber(ARGV[3 * i + 3]) - now) or 0
  --@include report-limit.lua
end
if given > 0 then
  if reset_after == 0 then
    redis.call('DEL', key)
  else
    --@include ttl.lua
    redis.call('PEXPIRE', key, px)
  end
end
local allowed, wait, retry_after = false, 0, 0
--@include reply.lua
