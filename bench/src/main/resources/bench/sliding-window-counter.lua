-- The classic Redis + Lua sliding window counter, the form Cloudflare described in "How we built
-- rate limiting capable of scaling to millions of domains" (2017) and most Redis rate-limiter
-- write-ups copy: the counts of the current and the previous fixed window, the previous one
-- weighted by how much of it the sliding window still covers. The same algorithm as the enforcer's
-- sliding-window-counter, so the redis scenario compares like with like.
--
-- KEYS[1]: the current window's counter, KEYS[2]: the previous window's (the caller names them by
--          window start, under one hash tag, so the script also runs on Redis Cluster)
-- ARGV[1]: limit per window, ARGV[2]: window length in ms, ARGV[3]: now in ms, ARGV[4]: cost
-- Returns 1 when the request is allowed (and counted), 0 when it is denied (nothing counted).
-- Time is an argument, not Redis' TIME, so a sequence of calls decides the same on every replay.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local elapsed = now % window
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
-- Both sides times the window length, so the comparison is exact (as the enforcer's is).
if previous * (window - elapsed) + (current + cost) * window > limit * window then
  return 0
end
redis.call('INCRBY', KEYS[1], cost)
-- Kept while it can still be a previous window.
redis.call('PEXPIRE', KEYS[1], 2 * window)
return 1
