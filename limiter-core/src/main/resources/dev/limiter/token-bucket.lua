-- Token bucket: a bucket of `burst` tokens, refilled continuously at limit/window; a request takes
-- its permits from the bucket or nothing at all. Twin: dev.limiter.TokenBucket.
--
-- KEYS[1]  hash of the key's state: tk = tokens left at time ts, ts = time of the last take (us).
--          An absent key is a full bucket.
-- ARGV[1]  now in microseconds since the epoch, or "" to use Redis TIME
-- ARGV[2]  limit: tokens added per window
-- ARGV[3]  window in microseconds
-- ARGV[4]  burst: capacity of the bucket
-- ARGV[5]  permits asked for
-- Reply    {allowed 1|0, remaining, reset_after_us, retry_after_us (-1: never)}
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local permits = tonumber(ARGV[5])

local tokens = burst
local last = now
local state = redis.call('HMGET', KEYS[1], 'tk', 'ts')
if state[1] and state[2] then
  last = tonumber(state[2])
  -- A clock that went backwards refills nothing rather than draining the bucket.
  local elapsed = math.max(0, now - last)
  tokens = math.min(burst, tonumber(state[1]) + elapsed * limit / window)
end

local reset_after = math.ceil((burst - tokens) * window / limit)
if permits > burst then
  return {0, math.floor(tokens), reset_after, -1}
end
if tokens < permits then
  return {0, math.floor(tokens), reset_after, math.ceil((permits - tokens) * window / limit)}
end

tokens = tokens - permits
reset_after = math.ceil((burst - tokens) * window / limit)
-- %.17g keeps every bit of the fraction, so the in-memory twin and Redis agree exactly.
redis.call('HSET', KEYS[1], 'tk', string.format('%.17g', tokens), 'ts', string.format('%d', math.max(now, last)))
-- Once the bucket is full again the key is the same as absent.
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.max(1, math.ceil(reset_after / 1000))))
return {1, math.floor(tokens), reset_after, 0}
