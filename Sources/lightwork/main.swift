import LightWork
print("lightwork")
