-- sliding-window: L permits per window W counted in N epoch-aligned sub-windows of S = W/N
-- (docs/algorithms.md). Twin: dev.limiter.internal.algorithm.SlidingWindow. Assembled by Scripts from the
-- --@include lines.
--
-- KEYS[1]  hash: field '<i>:<s>' = permits limit i took in its sub-window s = floor(t / S); only
--          non-zero counts are stored. Every admitted request deletes the fields that can no
--          longer count (s <= j - N, j being its current sub-window, which becomes the newest), so
--          the hash holds at most N fields per limit and a call reads no more: its cost depends on
--          the sub-windows, not on the traffic.
-- ARGV[4]  N, the number of sub-windows (divides every window)
--
-- A clock that went back stands still in the newest sub-window a limit counted: its current
-- sub-window is j = max(floor(t / S), newest stored s), so nothing leaves for negative elapsed time
-- and new permits go into that sub-window. Durations are still measured from the real t. So a
-- rejected request changes nothing, not even the fields that left at its time: should the clock go
-- back before it, they count again.
--
-- Straight-line code with few tables (docs/script-costs.md): one limit has its own path, several
-- limits another; both include the same fragments to combine the limits.

--@include decision-prelude.lua

local sub = string.sub
local sub_windows = tonumber(ARGV[4])

if count == 1 then
  local i, limit, window = 1, tonumber(ARGV[5]), tonumber(ARGV[6])
  local size = window / sub_windows
  local current = divmod(now, size)
  local stored = redis.call('HGETALL', key)
  local fields = #stored / 2
  -- The sub-window of the k-th stored field goes to stored[2 * fields + k]: no other table. The
  -- fields come in the order they were added (a small hash keeps it), which is oldest first, unless
  -- Redis stores the hash otherwise: then they are sorted below.
  local newest, ordered = nil, true
  for k = 1, fields do
    local s = tonumber(sub(stored[2 * k - 1], 3))
    stored[2 * fields + k] = s
    if not newest or s > newest then
      newest = s
    else
      ordered = false
    end
  end
  -- A sub-window newer than the clock's becomes the current one.
  if newest and newest > current then
    current = newest
  end
  local gone = current - sub_windows
  local used = 0
  for k = 1, fields do
    if stored[2 * fields + k] > gone then
      used = used + stored[2 * k]
    end
  end
  if newest and newest <= gone then
    newest = nil
  end
  local retry = -1
  if permits <= limit then
    retry = 0
    if used + permits > limit then
      -- The request fits once enough of the oldest sub-windows have left: sub-window s leaves at (s + N)·S.
      local order = nil
      if not ordered then
        order = {}
        for k = 1, fields do
          order[k] = k
        end
        table.sort(order, function(x, y) return stored[2 * fields + x] < stored[2 * fields + y] end)
      end
      local left = 0
      for k = 1, fields do
        local o = order and order[k] or k
        local s = stored[2 * fields + o]
        if s > gone then
          left = left + stored[2 * o]
          if used - left + permits <= limit then
            retry = (s + sub_windows) * size - now
            break
          end
        end
      end
    end
  end
  --@include verdict-limit.lua
  --@include verdict.lua
  local reset = newest and ((newest + sub_windows) * size - now) or 0
  if allowed then
    -- The current sub-window is never older than a stored one: it becomes (or stays) the newest.
    redis.call('HINCRBY', key, format('1:%d', current), ARGV[2])
    used = used + permits
    reset = (current + sub_windows) * size - now
    -- The fields that left can never count again once the current sub-window is the newest.
    local stale = nil
    for k = 1, fields do
      if stored[2 * fields + k] <= gone then
        stale = stale or {}
        stale[#stale + 1] = stored[2 * k - 1]
      end
    end
    if stale then
      -- In slices: Lua's unpack takes a few thousand values at most.
      for first = 1, #stale, 1000 do
        redis.call('HDEL', key, unpack(stale, first, math.min(first + 999, #stale)))
      end
    end
  end
  local remaining = limit - used
  --@include report-limit.lua
  --@include expire-and-reply.lua
end

--@include sliding-window-counts.lua

-- Each limit's permits, and the request weighed.
local used = {}
for i = 1, count do
  local limit = tonumber(ARGV[3 * i + 2])
  table.sort(live[i], function(a, b) return a[1] < b[1] end)
  used[i] = 0
  for _, c in ipairs(live[i]) do
    used[i] = used[i] + c[2]
  end
  local retry = -1
  if permits <= limit then
    retry = 0
    if used[i] + permits > limit then
      -- The request fits once enough of the oldest sub-windows have left.
      local left = 0
      for _, c in ipairs(live[i]) do
        left = left + c[2]
        if used[i] - left + permits <= limit then
          retry = (c[1] + sub_windows) * size[i] - now
          break
        end
      end
    end
  end
  --@include verdict-limit.lua
end
--@include verdict.lua

-- Apply the verdict to each limit; the reply's quota.
for i = 1, count do
  local newest = live[i][#live[i]] and live[i][#live[i]][1]
  if allowed then
    redis.call('HINCRBY', key, format('%d:%d', i, current[i]), ARGV[2])
    used[i] = used[i] + permits
    newest = current[i]
  end
  local remaining = tonumber(ARGV[3 * i + 2]) - used[i]
  local reset = newest and ((newest + sub_windows) * size[i] - now) or 0
  --@include report-limit.lua
end
if allowed then
  for first = 1, #stale, 1000 do
    redis.call('HDEL', key, unpack(stale, first, math.min(first + 999, #stale)))
  end
end
--@include expire-and-reply.lua
