import LightWork
print("lightwork-tools")
