-- fixed-window: at most L permits per window, windows aligned to the epoch (docs/algorithms.md).
-- Twin: dev.limiter.FixedWindow. Follows lib.lua, which parses the arguments.
--
-- KEYS[1]  hash: w<i> = index of the window limit i counts, n<i> = permits taken in it
-- ARGV[4]  unused

local fields = {}
for i = 1, #limits do
  fields[#fields + 1] = 'w' .. i
  fields[#fields + 1] = 'n' .. i
end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))

local capacity, retry, index, used, window_end = {}, {}, {}, {}, {}
for i, l in ipairs(limits) do
  index[i] = divmod(now, l.window)
  used[i] = 0
  local stored_index = tonumber(stored[2 * i - 1])
  -- A clock that went back stands still in the newer window it counted: nothing is forgotten.
  if stored_index and stored_index >= index[i] then
    index[i] = stored_index
    used[i] = tonumber(stored[2 * i])
  end
  window_end[i] = (index[i] + 1) * l.window - now
  capacity[i] = l.limit
  retry[i] = (used[i] + permits <= l.limit) and 0 or window_end[i]
end

local allowed, wait, violated, retry_after = decide(capacity, retry)
local remaining, reset, values = {}, {}, {}
for i, l in ipairs(limits) do
  if allowed then
    used[i] = used[i] + permits
    values[#values + 1] = 'w' .. i
    values[#values + 1] = string.format('%d', index[i])
    values[#values + 1] = 'n' .. i
    values[#values + 1] = string.format('%d', used[i])
  end
  remaining[i] = l.limit - used[i]
  reset[i] = (used[i] > 0) and window_end[i] or 0
end
if allowed then
  redis.call('HSET', KEYS[1], unpack(values))
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
