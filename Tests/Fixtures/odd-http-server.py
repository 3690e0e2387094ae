#!/usr/bin/env python3
"""Radio's misbehaving servers, on a free loopback port it prints first:
/redirect -> 302 to the URL given as argv[1]; /station.pls and /station.m3u list it;
/lists/relative.m3u lists it as ../redirect, /lists/rooted.pls as /redirect; /hostile.pls and
/hostile.m3u list a local file and a pipe; /missing -> 404; /garbage -> 200 audio/mpeg streaming text; /slow -> argv[2]'s bytes at a quarter of
their rate, as an overloaded server; /silent -> nothing at all for a minute, as a server that hangs;
/picture/NAME -> a small PNG (each NAME's own), counted; /picture-count -> how many were sent;
/picture-cut/NAME -> half a PNG, its Content-Length saying the whole; /picture-stall/NAME -> half
a PNG with no Content-Length, then nothing for a minute; /files/NAME -> the file NAME in the folder
argv[3] names (an HLS playlist and its segments)."""
import http.server, os, socketserver, struct, sys, threading, time, zlib

TARGET = sys.argv[1]
SLOW_FILE = sys.argv[2]
FOLDER = sys.argv[3] if len(sys.argv) > 3 else None

PICTURES = 0
PICTURES_LOCK = threading.Lock()

def png(seed):
    """A 4x4 PNG whose pixels come from `seed`."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    pixels = bytes((seed * 37 + i) % 256 for i in range(48))
    raw = b"".join(b"\x00" + pixels[row * 12:(row + 1) * 12] for row in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, kind, body):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        try:
            if self.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", TARGET)
                self.end_headers()
            elif self.path == "/station.pls":
                self.send(200, "audio/x-scpls", f"[playlist]\nNumberOfEntries=1\nFile1={TARGET}\nTitle1=Deck\n".encode())
            elif self.path == "/station.m3u":
                self.send(200, "audio/x-mpegurl", f"#EXTM3U\n#EXTINF:-1,Deck\n{TARGET}\n".encode())
            elif self.path == "/lists/relative.m3u":
                self.send(200, "audio/x-mpegurl", b"#EXTM3U\n../redirect\n")
            elif self.path == "/lists/rooted.pls":
                self.send(200, "audio/x-scpls", b"[playlist]\nFile1=/redirect\n")
            elif self.path == "/hostile.pls":
                self.send(200, "audio/x-scpls", b"[playlist]\nFile1=file:///etc/passwd\n")
            elif self.path == "/hostile.m3u":
                self.send(200, "audio/x-mpegurl", b"pipe:0\n")
            elif self.path == "/garbage":
                self.send_response(200)
                self.send_header("Content-Type", "audio/mpeg")
                self.end_headers()
                for _ in range(300):  # a stream of it, as a broken encoder would send
                    self.wfile.write(b"this is not audio at all\n" * 400)
                    self.wfile.flush()
                    time.sleep(0.1)
            elif self.path == "/slow":
                data = open(SLOW_FILE, "rb").read()
                self.send_response(200)
                self.send_header("Content-Type", "audio/mpeg")
                self.end_headers()
                step = 4000  # 128 kbit/s is 16000 bytes a second: a quarter of it
                for start in range(0, len(data), step):
                    self.wfile.write(data[start:start + step])
                    self.wfile.flush()
                    time.sleep(1)
            elif self.path.startswith("/picture/"):
                global PICTURES
                with PICTURES_LOCK:
                    PICTURES += 1
                self.send(200, "image/png", png(zlib.crc32(self.path.encode()) % 251))
            elif self.path.startswith("/picture-cut/"):
                body = png(7)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[:len(body) // 2])  # then the connection closes: half a picture
            elif self.path.startswith("/picture-stall/"):
                self.send(200, "image/png", png(11)[:30])
                self.wfile.flush()
                time.sleep(60)
            elif self.path.startswith("/files/") and FOLDER and "/" not in self.path[7:]:
                with open(os.path.join(FOLDER, self.path[7:]), "rb") as file:
                    body = file.read()
                self.send(200, "application/vnd.apple.mpegurl" if self.path.endswith(".m3u8") else "video/mp2t", body)
            elif self.path == "/picture-count":
                self.send(200, "text/plain", str(PICTURES).encode())
            elif self.path.startswith("/silent"):
                time.sleep(60)
            else:
                self.send(404, "text/plain", b"not found\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
