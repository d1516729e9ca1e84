-- sliding-log: a log of the times of admitted permits, exact over every span of length W
-- (docs/algorithms.md). Twin: dev.limiter.SlidingLog. Follows lib.lua, which parses the arguments.
--
-- KEYS[1]  sorted set: one entry per admitted request, score = its time in microseconds, member =
--          '<total>:<cost>', total being the running count of permits logged up to and including
--          this entry (13 digits, zero-padded so entries of one microsecond sort in logging order).
--          An entry of cost c stands for c permits logged at its time; the permits of any run of
--          entries are a difference of totals, so a call reads a few entries whatever the traffic
--          and a request costs one entry whatever its cost. Entries older than the longest window
--          are removed by every call: the set never holds more entries than the largest limit.
-- ARGV[4]  unused: the running total already makes every member unique within its key, across
--          instances and within one microsecond.

-- Totals are rebased to start from 0 again before they pass 2^40; until then they are exact doubles
-- of at most 13 digits. After a rebase they are below 2^31: the log never holds more than a limit.
local MAX_TOTAL = 2 ^ 40

local function member(total, cost)
  return string.format('%013d:%d', total, cost)
end

local function total_of(m)
  return tonumber(string.sub(m, 1, 13))
end

-- Permits logged before the entry: the total of the previous one.
local function before_of(m)
  return total_of(m) - tonumber(string.sub(m, 15))
end

local function score(t)
  return string.format('%d', t)
end

-- Renames entries (flat {member, score, ...} as WITHSCORES gives them) to totals moved by delta.
local function move(entries, delta)
  local gone, renamed = {}, {}
  for e = 1, #entries, 2 do
    gone[#gone + 1] = entries[e]
    renamed[#renamed + 1] = entries[e + 1]
    renamed[#renamed + 1] = member(total_of(entries[e]) + delta, total_of(entries[e]) - before_of(entries[e]))
  end
  -- In slices: Lua's unpack takes a few thousand values at most.
  for first = 1, #gone, 1000 do
    redis.call('ZREM', KEYS[1], unpack(gone, first, math.min(first + 999, #gone)))
  end
  for first = 1, #renamed, 1000 do
    redis.call('ZADD', KEYS[1], unpack(renamed, first, math.min(first + 999, #renamed)))
  end
end

local dropped = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', score(now - limits[#limits].window))
local count = redis.call('ZCARD', KEYS[1])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local newest_time = tonumber(newest[2])
local total = newest[1] and total_of(newest[1]) or 0

local capacity, retry, used = {}, {}, {}
for i, l in ipairs(limits) do
  -- Live entries are later than now - W (with the clock gone back, later than now too).
  local since = now - l.window
  local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. score(since), '+inf', 'LIMIT', 0, 1)
  local base = oldest[1] and before_of(oldest[1]) or total
  used[i] = total - base
  capacity[i] = l.limit
  retry[i] = 0
  if used[i] + permits > l.limit and permits <= l.limit then
    -- The k-th oldest live permit must leave first. Each entry holds at least one permit, so its
    -- entry is among the k from the oldest live one on: the first whose total reaches base + k.
    local k = used[i] + permits - l.limit
    local lo = redis.call('ZCOUNT', KEYS[1], '-inf', score(since))
    local hi = math.min(lo + k - 1, count - 1)
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if total_of(redis.call('ZRANGE', KEYS[1], mid, mid)[1]) >= base + k then
        hi = mid
      else
        lo = mid + 1
      end
    end
    retry[i] = tonumber(redis.call('ZRANGE', KEYS[1], lo, lo, 'WITHSCORES')[2]) + l.window - now
  end
end

local allowed, wait, violated, retry_after = decide(capacity, retry)
if allowed then
  if total + permits > MAX_TOTAL then
    local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
    local origin = before_of(all[1])
    move(all, -origin)
    total = total - origin
  end
  local below = total
  if newest_time and newest_time > now then
    -- The clock went back: this entry goes before the later ones, whose totals grow by its cost.
    local later = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. score(now), '+inf', 'WITHSCORES')
    below = before_of(later[1])
    move(later, permits)
  else
    newest_time = now
  end
  redis.call('ZADD', KEYS[1], score(now), member(below + permits, permits))
end

local remaining, reset = {}, {}
for i, l in ipairs(limits) do
  if allowed then
    used[i] = used[i] + permits
  end
  remaining[i] = l.limit - used[i]
  reset[i] = (used[i] > 0) and (newest_time + l.window - now) or 0
end
if allowed or dropped > 0 then
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
