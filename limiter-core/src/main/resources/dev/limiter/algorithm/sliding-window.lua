-- sliding-window: L permits per window W counted in N epoch-aligned sub-windows of S = W/N
-- (docs/algorithms.md). Twin: dev.limiter.SlidingWindow. Follows lib.lua, which parses the arguments.
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

local sub_windows = tonumber(param)

local size, current, live = {}, {}, {}
for i, l in ipairs(limits) do
  size[i] = l.window / sub_windows
  current[i] = divmod(now, size[i])
  live[i] = {}
end

-- Read the stored counts; a sub-window newer than the clock's becomes the current one.
local stored = redis.call('HGETALL', KEYS[1])
local counts = {}
for f = 1, #stored, 2 do
  local field = stored[f]
  local colon = string.find(field, ':', 1, true)
  local i = tonumber(string.sub(field, 1, colon - 1))
  local s = tonumber(string.sub(field, colon + 1))
  if s > current[i] then
    current[i] = s
  end
  counts[#counts + 1] = {field, i, s, tonumber(stored[f + 1])}
end

-- Sort the counts into their limits; collect the fields that left every window (at this time).
local stale = {}
for _, c in ipairs(counts) do
  local field, i, s = c[1], c[2], c[3]
  if s <= current[i] - sub_windows then
    stale[#stale + 1] = field
  else
    live[i][#live[i] + 1] = {s, c[4]}
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
    -- The current sub-window is never older than a stored one: it becomes (or stays) the newest.
    redis.call('HINCRBY', KEYS[1], string.format('%d:%d', i, current[i]), permits)
    used[i] = used[i] + permits
    newest = current[i]
  end
  remaining[i] = l.limit - used[i]
  reset[i] = newest and ((newest + sub_windows) * size[i] - now) or 0
end
if allowed then
  -- The fields that left can never count again once the current sub-windows are the newest.
  -- In slices: Lua's unpack takes a few thousand values at most.
  for first = 1, #stale, 1000 do
    redis.call('HDEL', KEYS[1], unpack(stale, first, math.min(first + 999, #stale)))
  end
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
