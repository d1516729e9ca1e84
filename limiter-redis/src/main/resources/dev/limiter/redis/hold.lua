-- Holds a key of a limiter until an upstream's reset, unless it is held longer already (RedisHoldingLimiter).
-- KEYS[1]: the hold key, <prefix>:{<limiter>:<key>}:companion:hold, in the hash tag of the limiter's keys
-- ARGV[1]: now in microseconds since the epoch, or "" to read Redis TIME
-- ARGV[2]: the hold in microseconds, at least 1
-- The key holds the end of the hold in microseconds and expires when the hold ends (TTL rounded up to
-- whole milliseconds), so a hold leaves nothing behind.
-- Reply: {microseconds the hold has left after this call}
--@include now.lua
local hold = tonumber(ARGV[2])
local wanted = now + hold
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current >= wanted then
  return {current - now}
end
redis.call('SET', KEYS[1], string.format('%.0f', wanted), 'PX', math.ceil(hold / 1000))
return {hold}
