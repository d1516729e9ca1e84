-- Prelude of every algorithm's script, decisions and refunds (each script includes it first): time,
-- arguments and exact integer arithmetic. See docs/algorithms.md, and docs/script-costs.md for why it
-- is this lean: it builds no table and no closure beyond the three helpers; each script reads its
-- limits straight from ARGV and has a straight-line path for the common case of one limit.
--
-- KEYS[1]   the key's state
-- KEYS[2]   optional, decisions only: a hold on the key (RedisRateLimiter's holding view, for the
--           outgoing-call integration), a key in the same hash tag holding the end of the hold in
--           microseconds. While it is later than now, the script rejects at once without reading or
--           writing KEYS[1]: {0, 1, 0, left, left, -1, 0, left}, left the hold's microseconds to go and
--           -1 (no limit) marking the rejection as the hold's. Without it, the check costs one #KEYS.
-- ARGV[1]   now in microseconds, or "" to read Redis TIME
-- ARGV[2]   permits asked for; 0 reads the quota without taking or writing anything
-- ARGV[3]   max-wait in microseconds (0: never wait)
-- ARGV[4]   algorithm parameter (sub-windows of sliding-window) or ""
-- ARGV[5..] limits sorted by window: L1, W1, B1, L2, W2, B2, ...
-- Reply     {allowed 1|0, reported limit, remaining, reset_after_us, retry_after_us (-1: never),
--            violated limit (0: none), wait_us, reset_after_us of the reported limit}
--
-- How several limits combine is written once, in fragments every script includes, as the twins'
-- Verdict does in Java: verdict-limit.lua and verdict.lua (admitted, waiting or rejected, and which
-- limit is violated), report-limit.lua and reply.lua (which limit the reply reports), ttl.lua (how long
-- the key is kept).

local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  -- Strings in arithmetic are numbers to Lua: no tonumber needed.
  now = t[1] * 1000000 + t[2]
else
  now = tonumber(ARGV[1])
end
if #KEYS > 1 then
  local ends = redis.call('GET', KEYS[2])
  if ends and ends - now > 0 then
    local left = ends - now
    return {0, 1, 0, left, left, -1, 0, left}
  end
end
local permits = tonumber(ARGV[2])
local max_wait = tonumber(ARGV[3])
local count = (#ARGV - 4) / 3
local key = KEYS[1]
local floor = math.floor
local format = string.format
-- What verdict-limit.lua and report-limit.lua fold each limit into, before verdict.lua and reply.lua.
local over, worst, violated = 0, 0, 0
local reported, lowest, reported_reset, reset_after = 0, 0, 0, 0

-- Lua numbers are doubles: whole numbers are exact below 2^53. These helpers keep every
-- intermediate value below that, so the arithmetic is exact and matches the Java twins bit for bit.

-- floor(x / m) and x - m * floor(x / m), for |x| < 2^53 and 0 < m < 2^53.
local function divmod(x, m)
  local q = floor(x / m)
  local r = x - q * m
  if r < 0 then
    q = q - 1
    r = r + m
  elseif r >= m then
    q = q + 1
    r = r - m
  end
  return q, r
end

-- floor(a * b / m) and (a * b) mod m, for 0 <= a < 2^35, 0 <= b < 2^46, 0 < m < 2^46 and a quotient
-- below 2^53: a * b itself may reach 2^81. Horner's rule over 7-bit digits of a.
local function muldivmod(a, b, m)
  -- The usual case: a * b is below 2^52, so the double holds it exactly and one division is exact.
  -- (A product at or above 2^52 rounds to at least 2^52, so the test itself is exact.)
  local p = a * b
  if p < 4503599627370496 then
    local q = floor(p / m)
    local r = p - q * m
    if r < 0 then
      q = q - 1
      r = r + m
    elseif r >= m then
      q = q + 1
      r = r - m
    end
    return q, r
  end
  local bq, br = divmod(b, m)
  local q, r = 0, 0
  for shift = 28, 0, -7 do
    local digit = floor(a / 2 ^ shift) % 128
    local q1, r1 = divmod(r * 128, m)
    local q2, r2 = divmod(digit * br, m)
    q = q * 128 + q1 + q2
    r = r1 + r2
    if r >= m then
      q = q + 1
      r = r - m
    end
  end
  return a * bq + q, r
end

-- ceil(x / m) for |x| < 2^53 and 0 < m.
local function ceildiv(x, m)
  local q = floor(x / m)
  local r = x - q * m
  if r < 0 then
    q = q - 1
    r = r + m
  elseif r >= m then
    q = q + 1
    r = r - m
  end
  if r > 0 then
    q = q + 1
  end
  return q
end
