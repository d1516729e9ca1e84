-- Fixed window counter: at most `limit` permits per window, windows aligned to the epoch.
-- Rejected requests take nothing. Twin: dev.limiter.FixedWindow.
--
-- KEYS[1]  hash of the key's state: w = index of the window counted (now / window, rounded down),
--          c = permits taken in that window
-- ARGV[1]  now in microseconds since the epoch, or "" to use Redis TIME
-- ARGV[2]  limit: permits per window
-- ARGV[3]  window in microseconds
-- ARGV[4]  burst (not used by this algorithm)
-- ARGV[5]  permits asked for
-- Reply    {allowed 1|0, remaining, reset_after_us, retry_after_us (-1: never)}
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local permits = tonumber(ARGV[5])

local index = math.floor(now / window)
local reset_after = (index + 1) * window - now
local state = redis.call('HMGET', KEYS[1], 'w', 'c')
local used = 0
if tonumber(state[1]) == index then
  used = tonumber(state[2])
end

if permits > limit then
  return {0, limit - used, reset_after, -1}
end
if used + permits > limit then
  return {0, limit - used, reset_after, reset_after}
end

used = used + permits
redis.call('HSET', KEYS[1], 'w', string.format('%d', index), 'c', string.format('%d', used))
-- The count matters until the window ends.
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil(reset_after / 1000)))
return {1, limit - used, reset_after, 0}
