-- How long a key of a limiter is still held, as an upstream asked (Retry-After, RateLimit fields): read by
-- a caller that waited its turn after its decision (RedisHoldingLimiter). The decisions themselves read
-- the hold in their own script (decision-prelude.lua, KEYS[2]).
-- KEYS[1]: the hold key, <prefix>:{<limiter>:<key>}:companion:hold, holding the end of the hold in microseconds
-- ARGV[1]: now in microseconds since the epoch, or "" to read Redis TIME
-- Reply: {microseconds the hold has left}; {0} when the key is not held
--@include now.lua
local ends = redis.call('GET', KEYS[1])
if not ends then
  return {0}
end
local left = tonumber(ends) - now
if left <= 0 then
  return {0}
end
return {left}
