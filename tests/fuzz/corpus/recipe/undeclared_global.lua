x = 1
return {}
