// The token bucket of decisions §5 as one atomic Redis step (GCRA: one number per client address,
// the theoretical arrival time). Redis's own TIME is the clock, so every replica shares one clock.
// Times are milliseconds with a fractional part, written with %.3f so Lua never rounds them to
// exponent notation.
export const TOKEN_BUCKET_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local burst = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local allow_at = tat + interval - burst * interval
if now < allow_at then
  return {0, 0, string.format('%.3f', allow_at - now)}
end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now) + 1000)
return {1, math.floor((now - allow_at) / interval), '0'}
`
