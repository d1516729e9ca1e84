-- gcra: generic cell rate algorithm, as in redis-cell: emission interval T = W/L, tolerance B*T
-- (docs/algorithms.md). Twin: dev.limiter.Gcra. Follows lib.lua, which parses the arguments.
--
-- KEYS[1]  hash: a<i> = whole microseconds of limit i's theoretical arrival time tau, f<i> = its
--          fraction over l<i>, the limit L it was written under (0 <= f < l), so tau = a + f/l
--          (beyond now + B*T: debt taken by waiting callers); t = the latest time of a change, so
--          that a clock going backwards stands still instead of reading as more debt. An absent key,
--          like tau <= now, is an idle limit. A state written under another limit (a limiter retuned
--          with on-retune: keep) has its fraction rounded up to one over the new L; without l<i>, the
--          state of an earlier version, it is over the current L.
-- ARGV[4]  unused

local fields = {'t'}
for i = 1, #limits do
  fields[#fields + 1] = 'a' .. i
  fields[#fields + 1] = 'f' .. i
  fields[#fields + 1] = 'l' .. i
end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local at = math.max(now, tonumber(stored[1]) or now)

-- tau + k * T, as whole microseconds and a fraction over L.
local function add_cells(k, a, f, l)
  local q, r = muldivmod(k, l.window, l.limit)
  local carry
  carry, f = divmod(f + r, l.limit)
  return a + q + carry, f
end

-- The fraction f of a microsecond over the limit 'over', as one over L: rounded up, never earlier.
local function over_limit(a, f, over, l)
  if over == l.limit then
    return a, f
  end
  local q, r = muldivmod(f, l.limit, over)
  if r > 0 then
    q = q + 1
  end
  if q == l.limit then
    return a + 1, 0
  end
  return a, q
end

local capacity, retry, a, f = {}, {}, {}, {}
for i, l in ipairs(limits) do
  a[i] = tonumber(stored[3 * i - 1])
  f[i] = tonumber(stored[3 * i])
  if not a[i] or not f[i] or a[i] < at then
    -- tau <= at: max(tau, at) = at.
    a[i], f[i] = at, 0
  else
    a[i], f[i] = over_limit(a[i], f[i], tonumber(stored[3 * i + 1]) or l.limit, l)
  end
  capacity[i] = l.burst
  retry[i] = 0
  -- A cost above the burst is never admitted (decide says so); its retry is not needed.
  if permits <= l.burst then
    -- ceil(tau' - at - B*T), tau' = max(tau, at) + c*T: 0 or less when the cells fit the tolerance.
    local na, nf = add_cells(permits, a[i], f[i], l)
    local bq, br = muldivmod(l.burst, l.window, l.limit)
    retry[i] = math.max(0, na - at - bq + ceildiv(nf - br, l.limit))
  end
end

local allowed, wait, violated, retry_after = decide(capacity, retry)
local remaining, reset, values = {}, {}, {'t', string.format('%d', at)}
for i, l in ipairs(limits) do
  if allowed then
    a[i], f[i] = add_cells(permits, a[i], f[i], l)
    values[#values + 1] = 'a' .. i
    values[#values + 1] = string.format('%d', a[i])
    values[#values + 1] = 'f' .. i
    values[#values + 1] = string.format('%d', f[i])
    values[#values + 1] = 'l' .. i
    values[#values + 1] = string.format('%d', l.limit)
  end
  -- floor(B - (tau - at) / T) = B - ceil(((a - at) * L + f) / W); below 0 while callers wait.
  local q, r = muldivmod(l.limit, a[i] - at, l.window)
  remaining[i] = l.burst - q - ceildiv(r + f[i], l.window)
  reset[i] = a[i] - at + ceildiv(f[i], l.limit)
end
if allowed then
  redis.call('HSET', KEYS[1], unpack(values))
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
