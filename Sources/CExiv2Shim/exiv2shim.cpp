// The exiv2 side of lw_exiv2.h: which exiv2 keys each descriptive field is read from and written to. Policy (which
// source wins) is LightWork's Swift code's (DescriptiveMetadata); this file only maps keys and converts text.
#include <exiv2/exiv2.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>
#include "lw_exiv2.h"

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

std::mutex &lock() {
    static std::mutex m;
    return m;
}

// Once per process, under lock(): exiv2 logs to stderr by default (LightWork reports through its own lines), and
// its BMFF (CR3, HEIF) reader is off unless enabled.
void prepare() {
    static bool done = false;
    if (done) return;
    Exiv2::LogMsg::setLevel(Exiv2::LogMsg::mute);
    Exiv2::XmpParser::initialize();
    Exiv2::enableBMFF(true);
    done = true;
}

void message(char *error, size_t size, const std::string &text) {
    if (!error || size == 0) return;
    std::strncpy(error, text.c_str(), size - 1);
    error[size - 1] = 0;
}

bool validUTF8(const std::string &s) {
    size_t i = 0, n = s.size();
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t extra;
        if (c < 0x80) extra = 0;
        else if ((c >> 5) == 6) extra = 1;
        else if ((c >> 4) == 14) extra = 2;
        else if ((c >> 3) == 30) extra = 3;
        else return false;
        if (n - i - 1 < extra) return false;
        for (size_t k = 1; k <= extra; k++) if (((unsigned char)s[i + k] >> 6) != 2) return false;
        i += extra + 1;
    }
    return true;
}

// IIM text in no declared character set is most often Latin-1 (older Photoshop, cameras): read as such when it is
// not valid UTF-8, so "©" does not become a replacement character.
std::string utf8(const std::string &s) {
    if (validUTF8(s)) return s;
    std::string out;
    for (unsigned char c : s) {
        if (c < 0x80) out += (char)c;
        else { out += (char)(0xC0 | (c >> 6)); out += (char)(0x80 | (c & 0x3F)); }
    }
    return out;
}

// NULs end a C string: dropped, so a value never splits a field list.
std::string clean(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), '\0'), s.end());
    return s;
}

void add(Fields &out, const std::string &key, const std::string &value) {
    std::string v = clean(value);
    if (!v.empty()) out.emplace_back(key, v);
}

// The x-default entry of a language alternative (or its first when it has none); a plain value as it is.
std::string text(const Exiv2::Xmpdatum &d) {
    if (d.typeId() == Exiv2::langAlt) {
        const auto &alt = dynamic_cast<const Exiv2::LangAltValue &>(d.value());
        auto it = alt.value_.find("x-default");
        if (it != alt.value_.end()) return it->second;
        return alt.value_.empty() ? std::string() : alt.value_.begin()->second;
    }
    return d.toString();
}

void readXmp(const Exiv2::XmpData &xmp, Fields &out) {
    struct Map { const char *key; const char *name; bool array; };
    static const Map maps[] = {
        {"Xmp.dc.creator", "xmp.creator", true}, {"Xmp.dc.rights", "xmp.rights", false},
        {"Xmp.xmpRights.UsageTerms", "xmp.usageTerms", false}, {"Xmp.dc.description", "xmp.description", false},
        {"Xmp.dc.subject", "xmp.subject", true}, {"Xmp.xmp.Rating", "xmp.rating", false}, {"Xmp.xmp.Label", "xmp.label", false},
        {"Xmp.photoshop.City", "xmp.city", false}, {"Xmp.photoshop.State", "xmp.state", false},
        {"Xmp.photoshop.Country", "xmp.country", false}, {"Xmp.iptc.Location", "xmp.sublocation", false},
    };
    for (const Map &m : maps) {
        auto it = xmp.findKey(Exiv2::XmpKey(m.key));
        if (it == xmp.end()) continue;
        if (m.array && (it->typeId() == Exiv2::xmpBag || it->typeId() == Exiv2::xmpSeq || it->typeId() == Exiv2::xmpAlt)) {
            for (long i = 0; i < it->count(); i++) add(out, m.name, it->toString(i));
        } else {
            add(out, m.name, text(*it));
        }
    }
}

void readIptc(const Exiv2::IptcData &iptc, Fields &out) {
    struct Map { const char *key; const char *name; };
    static const Map maps[] = {
        {"Iptc.Application2.Byline", "iptc.creator"}, {"Iptc.Application2.Copyright", "iptc.rights"},
        {"Iptc.Application2.Caption", "iptc.description"}, {"Iptc.Application2.Keywords", "iptc.subject"},
        {"Iptc.Application2.City", "iptc.city"}, {"Iptc.Application2.ProvinceState", "iptc.state"},
        {"Iptc.Application2.CountryName", "iptc.country"}, {"Iptc.Application2.SubLocation", "iptc.sublocation"},
    };
    for (const Map &m : maps) {
        Exiv2::IptcKey key(m.key);
        for (const auto &d : iptc) {
            if (d.record() == key.record() && d.tag() == key.tag()) add(out, m.name, utf8(d.toString()));
        }
    }
}

void readExif(const Exiv2::ExifData &exif, Fields &out) {
    struct Map { const char *key; const char *name; };
    static const Map maps[] = {
        {"Exif.Image.Artist", "exif.creator"}, {"Exif.Image.Copyright", "exif.rights"}, {"Exif.Image.Rating", "exif.rating"},
    };
    for (const Map &m : maps) {
        auto it = exif.findKey(Exiv2::ExifKey(m.key));
        if (it == exif.end()) continue;
        std::string v = it->typeId() == Exiv2::asciiString ? it->toString() : (it->count() > 0 ? std::to_string(it->toLong(0)) : "");
        // ASCII tags are padded with NULs or spaces by many cameras.
        size_t end = v.find_last_not_of(std::string(" \0", 2));
        add(out, m.name, end == std::string::npos ? std::string() : utf8(v.substr(0, end + 1)));
    }
}

int give(const std::string &bytes, lw_exiv2_buffer *out, char *error, size_t size) {
    out->bytes = nullptr;
    out->count = 0;
    if (bytes.empty()) return 0;
    out->bytes = (uint8_t *)std::malloc(bytes.size());
    if (!out->bytes) { message(error, size, "out of memory"); return -1; }
    std::memcpy(out->bytes, bytes.data(), bytes.size());
    out->count = bytes.size();
    return 0;
}

int giveFields(const Fields &fields, lw_exiv2_buffer *out, char *error, size_t size) {
    std::string list;
    for (const auto &f : fields) { list += f.first; list += '\0'; list += f.second; list += '\0'; }
    return give(list, out, error, size);
}

Fields parseFields(const void *bytes, size_t count) {
    Fields out;
    const char *p = (const char *)bytes, *end = p + count;
    while (p < end) {
        const char *k = p;
        while (p < end && *p) p++;
        if (p >= end) break;
        std::string key(k, p++);
        const char *v = p;
        while (p < end && *p) p++;
        if (p >= end) break;
        out.emplace_back(key, std::string(v, p++));
    }
    return out;
}

// The first `limit` bytes of `s`, cut at a character boundary: IIM datasets have maximum lengths (XMP keeps the whole).
std::string bounded(const std::string &s, size_t limit) {
    if (s.size() <= limit) return s;
    size_t n = limit;
    while (n > 0 && ((unsigned char)s[n] >> 6) == 2) n--;
    return s.substr(0, n);
}

// Every entry point: under the lock, exiv2 prepared, `out` empty until `body` fills it, exceptions turned into -1
// with their message.
template <typename Body> int guarded(lw_exiv2_buffer *out, char *error, size_t error_size, Body body) {
    std::lock_guard<std::mutex> guard(lock());
    prepare();
    out->bytes = nullptr;
    out->count = 0;
    try {
        return body();
    } catch (const std::exception &e) {
        message(error, error_size, e.what());
        return -1;
    } catch (...) {
        message(error, error_size, "exiv2 failed (an exception of unknown type)");
        return -1;
    }
}

}  // namespace

extern "C" int lw_exiv2_read_image(const void *bytes, size_t count, lw_exiv2_buffer *fields, char *error, size_t error_size) {
    return guarded(fields, error, error_size, [&]() -> int {
        if (Exiv2::ImageFactory::getType((const Exiv2::byte *)bytes, (long)count) == Exiv2::ImageType::none) return 1;
        Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open((const Exiv2::byte *)bytes, (long)count);
        if (!image.get()) return 1;
        image->readMetadata();
        Fields out;
        readExif(image->exifData(), out);
        readIptc(image->iptcData(), out);
        readXmp(image->xmpData(), out);
        return giveFields(out, fields, error, error_size);
    });
}

extern "C" int lw_exiv2_read_xmp(const void *text, size_t count, lw_exiv2_buffer *fields, char *error, size_t error_size) {
    return guarded(fields, error, error_size, [&]() -> int {
        std::string packet((const char *)text, count);
        if (packet.find("<x:xmpmeta") == std::string::npos && packet.find("<rdf:RDF") == std::string::npos) {
            message(error, error_size, "no XMP in it (no x:xmpmeta or rdf:RDF element)");
            return -1;
        }
        Exiv2::XmpData xmp;
        if (Exiv2::XmpParser::decode(xmp, packet) != 0) {
            message(error, error_size, "not well-formed XMP (exiv2's XMP parser refused it)");
            return -1;
        }
        Fields out;
        readXmp(xmp, out);
        return giveFields(out, fields, error, error_size);
    });
}

extern "C" int lw_exiv2_xmp_packet(const void *fields, size_t count, lw_exiv2_buffer *packet, char *error, size_t error_size) {
    return guarded(packet, error, error_size, [&]() -> int {
        Fields in = parseFields(fields, count);
        Exiv2::XmpData xmp;
        auto array = [&](const char *name, const char *key, Exiv2::TypeId type) {
            Exiv2::Value::AutoPtr v = Exiv2::Value::create(type);
            for (const auto &f : in) if (f.first == name) v->read(f.second);
            if (v->count() > 0) xmp.add(Exiv2::XmpKey(key), v.get());
        };
        auto alt = [&](const char *name, const char *key) {
            for (const auto &f : in) if (f.first == name) {
                Exiv2::Value::AutoPtr v = Exiv2::Value::create(Exiv2::langAlt);
                v->read("lang=\"x-default\" " + f.second);
                xmp.add(Exiv2::XmpKey(key), v.get());
                return;
            }
        };
        auto plain = [&](const char *name, const char *key) {
            // value_ set directly: XmpTextValue::read would take a text beginning "type=" as a type declaration.
            for (const auto &f : in) if (f.first == name) {
                Exiv2::XmpTextValue v;
                v.value_ = f.second;
                xmp.add(Exiv2::XmpKey(key), &v);
                return;
            }
        };
        array("creator", "Xmp.dc.creator", Exiv2::xmpSeq);
        alt("rights", "Xmp.dc.rights");
        alt("usageTerms", "Xmp.xmpRights.UsageTerms");
        alt("description", "Xmp.dc.description");
        array("subject", "Xmp.dc.subject", Exiv2::xmpBag);
        plain("rating", "Xmp.xmp.Rating");
        plain("label", "Xmp.xmp.Label");
        plain("city", "Xmp.photoshop.City");
        plain("state", "Xmp.photoshop.State");
        plain("country", "Xmp.photoshop.Country");
        plain("sublocation", "Xmp.iptc.Location");
        if (xmp.empty()) return 0;
        std::string out;
        if (Exiv2::XmpParser::encode(out, xmp, Exiv2::XmpParser::useCompactFormat) != 0) {
            message(error, error_size, "exiv2's XMP toolkit could not serialise the packet");
            return -1;
        }
        return give(out, packet, error, error_size);
    });
}

extern "C" int lw_exiv2_iptc(const void *fields, size_t count, lw_exiv2_buffer *iptc, char *error, size_t error_size) {
    return guarded(iptc, error, error_size, [&]() -> int {
        struct Map { const char *name; const char *key; size_t limit; };
        // IIM 4.2's maximum lengths in bytes.
        static const Map maps[] = {
            {"creator", "Iptc.Application2.Byline", 32}, {"rights", "Iptc.Application2.Copyright", 128},
            {"description", "Iptc.Application2.Caption", 2000}, {"subject", "Iptc.Application2.Keywords", 64},
            {"city", "Iptc.Application2.City", 32}, {"state", "Iptc.Application2.ProvinceState", 32},
            {"country", "Iptc.Application2.CountryName", 64}, {"sublocation", "Iptc.Application2.SubLocation", 32},
        };
        Fields in = parseFields(fields, count);
        Exiv2::IptcData data;
        data["Iptc.Application2.RecordVersion"] = uint16_t(4);
        for (const Map &m : maps) {
            for (const auto &f : in) {
                if (f.first != m.name) continue;
                Exiv2::Iptcdatum d{Exiv2::IptcKey(m.key)};
                d.setValue(bounded(f.second, m.limit));
                data.add(d);
            }
        }
        if (data.count() == 1) return 0;
        // ESC % G: the datasets are UTF-8 (IIM's CodedCharacterSet, what exiftool and Photoshop read).
        data["Iptc.Envelope.CharacterSet"] = std::string("\x1b%G");
        Exiv2::DataBuf encoded = Exiv2::IptcParser::encode(data);
        return give(std::string((const char *)encoded.pData_, (size_t)encoded.size_), iptc, error, error_size);
    });
}

extern "C" int lw_exiv2_photoshop_irb(const void *iim, size_t count, lw_exiv2_buffer *irb, char *error, size_t error_size) {
    return guarded(irb, error, error_size, [&]() -> int {
        Exiv2::IptcData data;
        if (Exiv2::IptcParser::decode(data, (const Exiv2::byte *)iim, (uint32_t)count) != 0) {
            message(error, error_size, "the IPTC-IIM datasets do not parse");
            return -1;
        }
        Exiv2::DataBuf encoded = Exiv2::Photoshop::setIptcIrb(nullptr, 0, data);
        return give(std::string((const char *)encoded.pData_, (size_t)encoded.size_), irb, error, error_size);
    });
}

extern "C" void lw_exiv2_free(lw_exiv2_buffer *buffer) {
    if (!buffer) return;
    std::free(buffer->bytes);
    buffer->bytes = nullptr;
    buffer->count = 0;
}

extern "C" const char *lw_exiv2_version(void) { return Exiv2::version(); }
