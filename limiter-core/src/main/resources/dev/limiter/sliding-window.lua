-- sliding-window: L permits per window W counted in N epoch-aligned sub-windows of S = W/N
-- (docs/algorithms.md). Twin: dev.limiter.SlidingWindow. Follows lib.lua, which parses the arguments.
--
-- KEYS[1]  hash: field '<i>:<s>' = permits limit i took in its sub-window s = floor(t / S); only
--          non-zero counts are stored. Fields that can no longer count (s <= j - N) are deleted by
--          every call, so a call reads at most the N live fields of each limit: its cost depends on
--          the sub-windows, not on the traffic.
-- ARGV[4]  N, the number of sub-windows (divides every window)
--
-- A clock that goes back expires nothing: a count in a sub-window after the current one (written
-- before the clock went back) stays live until it would have left at its own time.

local sub_windows = tonumber(param)

local size, current, live = {}, {}, {}
for i, l in ipairs(limits) do
  size[i] = l.window / sub_windows
  current[i] = divmod(now, size[i])
  live[i] = {}
end

-- Sort the stored counts into their limits; collect the fields that left every window.
local stored = redis.call('HGETALL', KEYS[1])
local stale = {}
for f = 1, #stored, 2 do
  local field = stored[f]
  local colon = string.find(field, ':', 1, true)
  local i = tonumber(string.sub(field, 1, colon - 1))
  local s = tonumber(string.sub(field, colon + 1))
  if s <= current[i] - sub_windows then
    stale[#stale + 1] = field
  else
    live[i][#live[i] + 1] = {s, tonumber(stored[f + 1])}
  end
end

local capacity, retry, used = {}, {}, {}
for i, l in ipairs(limits) do
  table.sort(live[i], function(a, b) return a[1] < b[1] end)
  used[i] = 0
  for _, sub in ipairs(live[i]) do
    used[i] = used[i] + sub[2]
  end
  capacity[i] = l.limit
  retry[i] = 0
  if used[i] + permits > l.limit and permits <= l.limit then
    -- The request fits once enough of the oldest sub-windows have left: sub-window s leaves at (s + N)·S.
    local left = 0
    for _, sub in ipairs(live[i]) do
      left = left + sub[2]
      if used[i] - left + permits <= l.limit then
        retry[i] = (sub[1] + sub_windows) * size[i] - now
        break
      end
    end
  end
end

local allowed, wait, violated, retry_after = decide(capacity, retry)
local remaining, reset = {}, {}
for i, l in ipairs(limits) do
  local newest = live[i][#live[i]] and live[i][#live[i]][1]
  if allowed then
    redis.call('HINCRBY', KEYS[1], string.format('%d:%d', i, current[i]), permits)
    used[i] = used[i] + permits
    if not newest or current[i] > newest then
      newest = current[i]
    end
  end
  remaining[i] = l.limit - used[i]
  reset[i] = newest and ((newest + sub_windows) * size[i] - now) or 0
end
-- In slices: Lua's unpack takes a few thousand values at most.
for first = 1, #stale, 1000 do
  redis.call('HDEL', KEYS[1], unpack(stale, first, math.min(first + 999, #stale)))
end
if allowed or #stale > 0 then
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
