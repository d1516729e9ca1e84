-- sliding-log: a log of the times of admitted permits, exact over every span of length W
-- (docs/algorithms.md). Twin: dev.limiter.internal.algorithm.SlidingLog. Assembled by Scripts from the
-- --@include lines.
--
-- KEYS[1]  sorted set: one entry per admitted request, score = its time in microseconds, member =
--          five unsigned big-endian integers of 27 bytes in all (struct.pack ENTRY): total (6 bytes),
--          the running count of permits logged up to and including this entry, first so that entries
--          of one microsecond sort in logging order; time (7 bytes), the score again, so that no read
--          needs WITHSCORES, which costs Redis nearly as much as the read itself
--          (docs/script-costs.md); fits after (6 bytes) and limit (4 bytes), the rejection hint below;
--          cost (4 bytes).
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
--
-- Straight-line code that builds no table but the reply on its usual paths (docs/script-costs.md):
-- one limit has its own path, several limits another; both include the same fragments to combine
-- the limits.
--
-- The rejection hint: an entry logged by a one-limit call holds how long after its own time one more
-- permit fits under that call's limit (until the permit numbered total + 1 - limit leaves), or 0 when
-- that is not known or already so. Permits leave in the order they were logged, and nothing but an
-- admission (which logs a newer entry) or a refund (which clears the newest entry's hint) changes
-- the log, so the newest entry's hint holds for as long as it is the newest. A call for one permit
-- under the same limit that the hint rejects is answered from the newest entry alone: remaining 0,
-- retry at the hint. Every other call reads the log as below; the answer is the same either way.

-- Totals are rebased to start from 0 again before they pass 2^40; until then they fit their 6 bytes.
-- After a rebase they are below 2^31: the log never holds more than a limit.
--@include decision-prelude.lua

local MAX_TOTAL = 2 ^ 40

-- An entry's member: total, time, fits after, limit, cost.
local ENTRY = '>I6I7I6I4I4'

local pack, read = struct.pack, struct.unpack

-- The time of the entry that holds the k-th permit after base, k > 1, among the live entries
-- (later than since) whose oldest, the first live one, holds fewer. Each entry holds at least one
-- permit, so it is among the k from the oldest live one on: the first whose total reaches base + k.
local function kth_time(since, base, k)
  local lo = redis.call('ZCOUNT', key, '-inf', format('%d', since))
  local hi = redis.call('ZCARD', key) - 1
  if lo + k - 1 < hi then
    hi = lo + k - 1
  end
  while lo < hi do
    local mid = floor((lo + hi) / 2)
    if read('>I6', redis.call('ZRANGE', key, mid, mid)[1]) >= base + k then
      hi = mid
    else
      lo = mid + 1
    end
  end
  local _, time = read(ENTRY, redis.call('ZRANGE', key, lo, lo)[1])
  return time
end

local newest = redis.call('ZRANGE', key, -1, -1)[1]
local total, newest_time, newest_fits_after, newest_limit = 0, nil, 0, 0
if newest then
  total, newest_time, newest_fits_after, newest_limit = read(ENTRY, newest)
end
local standing = now
if newest_time and newest_time > now then
  standing = newest_time
end

-- The oldest entry live after since: its total and time, and the total before it (the base of the
-- live permits); with none live, 0, nil and the newest total.
local function oldest_live(since)
  local first = newest and redis.call('ZRANGEBYSCORE', key, format('(%d', since), '+inf', 'LIMIT', '0', '1')[1]
  if not first then
    return 0, nil, total
  end
  local first_total, first_time, _, _, first_cost = read(ENTRY, first)
  return first_total, first_time, first_total - first_cost
end

-- Logs the request at standing, the newest time of all: it goes after every other entry, with the
-- rejection hint fits_after under limit (fits_after 0: no hint; several limits write 0 for both).
-- Entries older than the longest window at standing can never count again. Returns the new newest time.
local function log(longest, fits_after, limit)
  local cutoff = standing - longest
  -- An absent key has nothing to remove.
  if newest_time then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', format('%d', cutoff))
  end
  -- Every entry left exactly when the newest did: the log starts over from a total of 0.
  if not newest_time or newest_time <= cutoff then
    total = 0
  end
  if total + permits > MAX_TOTAL then
    -- Renames every entry to totals moved back by the total before the oldest.
    local all = redis.call('ZRANGE', key, 0, -1)
    local oldest_total, _, _, _, oldest_cost = read(ENTRY, all[1])
    local origin = oldest_total - oldest_cost
    local renamed = {}
    for e = 1, #all do
      local t, time, f, l, c = read(ENTRY, all[e])
      renamed[#renamed + 1] = format('%d', time)
      renamed[#renamed + 1] = pack(ENTRY, t - origin, time, f, l, c)
    end
    -- In slices: Lua's unpack takes a few thousand values at most.
    for first = 1, #all, 1000 do
      redis.call('ZREM', key, unpack(all, first, math.min(first + 999, #all)))
    end
    for first = 1, #renamed, 1000 do
      redis.call('ZADD', key, unpack(renamed, first, math.min(first + 999, #renamed)))
    end
    total = total - origin
  end
  redis.call('ZADD', key, format('%d', standing), pack(ENTRY, total + permits, standing, fits_after, limit, permits))
  return standing
end

if count == 1 then
  local i, limit, window = 1, tonumber(ARGV[5]), tonumber(ARGV[6])
  -- The hint rejects one permit until then, under the limit it was written for. A hint is later than
  -- its own entry, so later than standing when later than now.
  if permits == 1 and newest_fits_after > 0 and newest_limit == limit then
    local retry = newest_time + newest_fits_after - now
    if retry > max_wait then
      -- The reply of reply.lua for this rejection by the one limit, without its folds.
      local reset = newest_time + window - now
      return {0, 1, 0, reset, retry, 1, 0, reset}
    end
  end
  -- Live entries are later than standing - W.
  local since = standing - window
  local first_total, first_time, base = oldest_live(since)
  local used = total - base
  local retry = -1
  if permits <= limit then
    retry = 0
    if used + permits > limit then
      -- The k-th oldest live permit must leave first; the oldest live entry holds it when its total
      -- reaches base + k (always so for k = 1).
      local k = used + permits - limit
      local time = (first_total >= base + k) and first_time or kth_time(since, base, k)
      retry = time + window - now
    end
  end
  --@include verdict-limit.lua
  --@include verdict.lua
  if allowed then
    used = used + permits
    -- The first live permit is the one that must leave for one more to fit when the log is full:
    -- the oldest live entry's, or this call's own when none was live.
    local fits_after = 0
    if used == limit and wait == 0 then
      fits_after = (first_time or standing) + window - standing
    end
    newest_time = log(window, fits_after, limit)
  end
  -- A limit with a live entry has the newest entry live.
  local reset = (used > 0) and (newest_time + window - now) or 0
  local remaining = limit - used
  --@include report-limit.lua
  --@include expire-and-reply.lua
end

-- The permits each limit holds, and the request weighed.
local used = {}
for i = 1, count do
  local limit, window = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3])
  local since = standing - window
  local first_total, first_time, base = oldest_live(since)
  used[i] = total - base
  local retry = -1
  if permits <= limit then
    retry = 0
    if used[i] + permits > limit then
      local k = used[i] + permits - limit
      local time = (first_total >= base + k) and first_time or kth_time(since, base, k)
      retry = time + window - now
    end
  end
  --@include verdict-limit.lua
end
--@include verdict.lua
if allowed then
  newest_time = log(tonumber(ARGV[3 * count + 3]), 0, 0)
end

-- The reply's quota.
for i = 1, count do
  local limit, window = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3])
  if allowed then
    used[i] = used[i] + permits
  end
  local remaining = limit - used[i]
  local reset = (used[i] > 0) and (newest_time + window - now) or 0
  --@include report-limit.lua
end
--@include expire-and-reply.lua
