-- leaky-bucket: not implemented yet
return redis.error_reply('leaky-bucket is not implemented yet')
