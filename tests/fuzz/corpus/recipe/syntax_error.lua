local t = {
return t
