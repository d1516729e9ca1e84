-- sliding-log: a log of the times of admitted permits, exact over every span of length W
-- (docs/algorithms.md). Twin: dev.limiter.SlidingLog. Follows lib.lua, which parses the arguments.
--
-- KEYS[1]  sorted set: one entry per admitted request, score = its time in microseconds, member =
--          '<total>:<cost>', total being the running count of permits logged up to and including
--          this entry (13 digits, zero-padded so entries of one microsecond sort in logging order).
--          An entry of cost c stands for c permits logged at its time; the permits of any run of
--          entries are a difference of totals, so a call reads a few entries whatever the traffic
--          and a request costs one entry whatever its cost. Every admitted request removes the
--          entries older than the longest window at its (standing) time, which can never count
--          again: the set never holds more entries than the largest limit.
--          Members need no instance or call prefix: the running total already makes every member
--          unique within its key, across instances and within one microsecond.
-- ARGV[4]  unused
--
-- A clock that went back stands still at the newest entry: the log is read at standing =
-- max(t, newest entry time), so nothing expires for negative elapsed time, and a new entry is logged
-- at standing, after every other one. Durations are still measured from the real t. So a rejected
-- request changes nothing, not even the entries that left at its time: should the clock go back
-- before it, they count again.

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

local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local newest_time = tonumber(newest[2])
local standing = now
if newest_time and newest_time > now then
  standing = newest_time
end
-- Entries in the log, read only when needed: a rejection usually decides without it.
local count
local function card()
  if not count then
    count = redis.call('ZCARD', KEYS[1])
  end
  return count
end
local total = newest[1] and total_of(newest[1]) or 0

local capacity, retry, used = {}, {}, {}
for i, l in ipairs(limits) do
  -- Live entries are later than standing - W.
  local since = standing - l.window
  local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. score(since), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local base = oldest[1] and before_of(oldest[1]) or total
  used[i] = total - base
  capacity[i] = l.limit
  retry[i] = 0
  if used[i] + permits > l.limit and permits <= l.limit then
    -- The k-th oldest live permit must leave first. Each entry holds at least one permit, so its
    -- entry is among the k from the oldest live one on: the first whose total reaches base + k.
    local k = used[i] + permits - l.limit
    if total_of(oldest[1]) >= base + k then
      -- The oldest live entry holds the k-th permit (always so for k = 1): no search.
      retry[i] = tonumber(oldest[2]) + l.window - now
    else
      local lo = redis.call('ZCOUNT', KEYS[1], '-inf', score(since))
      local hi = math.min(lo + k - 1, card() - 1)
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
end

local allowed, wait, violated, retry_after = decide(capacity, retry)
if allowed then
  -- The new entry, logged at standing, is the newest from now on: entries older than the longest
  -- window at standing can never count again.
  local entries = card()
  local dropped = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', score(standing - limits[#limits].window))
  if dropped == entries then
    -- Every entry left: the log starts over from a total of 0.
    total = 0
  end
  if total + permits > MAX_TOTAL then
    local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
    local origin = before_of(all[1])
    move(all, -origin)
    total = total - origin
  end
  -- Logged at standing, the newest time of all: it goes after every other entry.
  redis.call('ZADD', KEYS[1], score(standing), member(total + permits, permits))
  newest_time = standing
end

local remaining, reset = {}, {}
for i, l in ipairs(limits) do
  if allowed then
    used[i] = used[i] + permits
  end
  remaining[i] = l.limit - used[i]
  -- A limit with a live entry has the newest entry live.
  reset[i] = (used[i] > 0) and (newest_time + l.window - now) or 0
end
if allowed then
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
