-- Prelude of the refund scripts (Scripts.PRELUDE): arguments, time, exact integer arithmetic, and
-- the reply that reports several limits' quotas. See docs/algorithms.md. The decision scripts follow
-- the leaner decide.lua instead, which builds none of these tables and closures on every call
-- (docs/script-costs.md).
--
-- KEYS[1]   the key's state
-- ARGV[1]   now in microseconds, or "" to read Redis TIME
-- ARGV[2]   permits asked for; 0 reads the quota without taking or writing anything
-- ARGV[3]   max-wait in microseconds (unused: nothing here waits)
-- ARGV[4]   algorithm parameter (sub-windows of sliding-window) or ""
-- ARGV[5..] limits sorted by window: L1, W1, B1, L2, W2, B2, ...
-- Reply     {allowed 1|0, reported limit, remaining, reset_after_us, retry_after_us (-1: never),
--            violated limit (0: none), wait_us, reset_after_us of the reported limit}

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local permits = tonumber(ARGV[2])
local param = ARGV[4]
local limits = {}
for i = 5, #ARGV, 3 do
  limits[#limits + 1] = {limit = tonumber(ARGV[i]), window = tonumber(ARGV[i + 1]), burst = tonumber(ARGV[i + 2])}
end

-- Lua numbers are doubles: whole numbers are exact below 2^53. These helpers keep every
-- intermediate value below that, so the arithmetic is exact and matches the Java twins bit for bit.

-- floor(x / m) and x - m * floor(x / m), for |x| < 2^53 and 0 < m < 2^53.
local function divmod(x, m)
  local q = math.floor(x / m)
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
  -- The usual case: a * b is below 2^52, so the double holds it exactly and one divmod is exact.
  -- (A product at or above 2^52 rounds to at least 2^52, so the test itself is exact.)
  if a * b < 4503599627370496 then
    return divmod(a * b, m)
  end
  local bq, br = divmod(b, m)
  local q, r = 0, 0
  for shift = 28, 0, -7 do
    local digit = math.floor(a / 2 ^ shift) % 128
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
  local q, r = divmod(x, m)
  if r > 0 then
    q = q + 1
  end
  return q
end

-- The reply, from each limit's remaining permits and reset-after once the decision is applied.
local function reply(allowed, wait, violated, retry_after, remaining, reset)
  local reported, reset_after = 1, 0
  for i = 1, #limits do
    if remaining[i] < remaining[reported] then
      reported = i
    end
    if reset[i] > reset_after then
      reset_after = reset[i]
    end
  end
  return {allowed and 1 or 0, reported, math.max(0, remaining[reported]), reset_after, retry_after, violated, wait, reset[reported]}
end

-- Keeps the state only as long as it differs from an absent key: until every limit is whole again.
local function expire(reset)
  local longest = 0
  for i = 1, #limits do
    if reset[i] > longest then
      longest = reset[i]
    end
  end
  redis.call('PEXPIRE', KEYS[1], string.format('%d', math.max(1, ceildiv(longest, 1000))))
end
