-- Writes values as the key's state in layout (doubles-read.lua), kept as ttl.lua says.
--@include ttl.lua
redis.call('SET', key, struct.pack(layout, unpack(values)), 'PX', px)
