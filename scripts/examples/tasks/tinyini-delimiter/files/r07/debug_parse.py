import tinyini

cfg = tinyini.load("sample.ini")
print("sections:", cfg.sections())
print("server keys:", list(cfg["server"]))
print("url:", cfg["server"]["url"])
