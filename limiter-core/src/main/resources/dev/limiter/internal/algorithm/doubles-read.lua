-- Reads the key's state kept as a string of `doubles` doubles, little-endian (struct.pack('<d...'):
-- fixed-window, the buckets and gcra): stored holds the numbers, empty when the key is absent or
-- holds another layout (another length); layout is the layout, for doubles-write.lua.
local layout = '<' .. string.rep('d', doubles)
local stored = {}
local value = redis.call('GET', key)
if value and #value == 8 * doubles then
  stored = {struct.unpack(layout, value)}
end
