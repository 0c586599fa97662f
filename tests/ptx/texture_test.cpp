// Texture and surface objects against host samplers written from the CUDA
// programming guide's definitions (texel centres at i + 0.5, 8-bit filter
// weights, address modes applied per axis).
#include <cmath>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

long long clampi(long long i, long long n) {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}
double w8(double f) {
  return std::round(f * 256) / 256;
}

TEST(PtxTexture, OneDimensionalFetchAndLinearFiltering) {
  CNUAS_REQUIRE_NVCC();
  const std::vector<float> data{1, 3, -2, 8, 0.5f, 4, 4, -1};
  Device dev("texture.ptx");
  TextureTable table;
  TextureDescriptor d;
  d.base = dev.upload(data);
  d.width = 8;
  d.filter = FilterMode::Linear;
  const std::uint64_t tex = table.create(d);
  auto out = dev.alloc<float>(32 * 3);
  dev.set_textures(&table);
  dev.launch("fetch1d", {1, 1, 1}, {32, 1, 1}, tex, out);
  auto h = dev.download<float>(out, 96);
  auto linear = [&](double x) {
    const double b = x - 0.5;
    const long long i0 = static_cast<long long>(std::floor(b));
    const double a = w8(b - std::floor(b));
    return (1 - a) * data[clampi(i0, 8)] + a * data[clampi(i0 + 1, 8)];
  };
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(h[i * 3 + 0], data[clampi(i - 2, 8)]) << i;
    EXPECT_FLOAT_EQ(h[i * 3 + 1], static_cast<float>(linear(i * 0.25f))) << i;
    EXPECT_FLOAT_EQ(h[i * 3 + 2], static_cast<float>(linear(i * 0.3f - 1.0f))) << i;
  }
}

// A W x H texture of four float channels over `data`, on `dev`.
TextureDescriptor rgba_2d(Device& dev, const std::vector<float>& data, int W, int H) {
  TextureDescriptor d;
  d.base = dev.upload(data);
  d.dims = 2;
  d.width = W;
  d.height = H;
  d.channels = 4;
  return d;
}

TEST(PtxTexture, NormalizedWrappedPointSamplingAndGather) {
  CNUAS_REQUIRE_NVCC();
  const int W = 5, H = 3;
  std::vector<float> data(W * H * 4);
  for (int k = 0; k < W * H * 4; ++k) data[k] = static_cast<float>(k * 7 % 23) - 5;
  Device dev("texture.ptx");
  TextureTable table;
  TextureDescriptor d = rgba_2d(dev, data, W, H);
  d.normalized_coords = true;
  d.address[0] = d.address[1] = AddressMode::Wrap;
  const std::uint64_t tex = table.create(d);
  auto out = dev.alloc<float>(32 * 8);
  dev.set_textures(&table);
  const float sx = 0.137f, sy = 0.071f;
  dev.launch("sample2d", {1, 1, 1}, {32, 1, 1}, tex, out, sx, sy);
  auto h = dev.download<float>(out, 256);
  auto wrap = [](long long i, long long n) { return ((i % n) + n) % n; };
  for (int i = 0; i < 32; ++i) {
    const double u = static_cast<double>(static_cast<float>(i * sx)),
                 v = static_cast<double>(static_cast<float>(i * sy));
    const double px = (u - std::floor(u)) * W, py = (v - std::floor(v)) * H;
    const long long x = static_cast<long long>(std::floor(px)),
                    y = static_cast<long long>(std::floor(py));
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(h[i * 8 + c], data[(wrap(y, H) * W + wrap(x, W)) * 4 + c]) << i;
    // Gather: the bilinear footprint's green channel in the order (0,1) (1,1) (1,0) (0,0).
    const long long x0 = static_cast<long long>(std::floor(px - 0.5)),
                    y0 = static_cast<long long>(std::floor(py - 0.5));
    const int corner[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(h[i * 8 + 4 + k],
                data[(wrap(y0 + corner[k][1], H) * W + wrap(x0 + corner[k][0], W)) * 4 + 1])
          << i << " corner " << k;
  }
}

// CUDA applies wrap and mirror to normalized coordinates only; a texture
// with unnormalized coordinates clamps whatever mode was set (NVIDIA's
// convolutionTexture sets wrap and checks against a clamping reference).
TEST(PtxTexture, UnnormalizedCoordinatesClampWhereWrapOrMirrorIsSet) {
  CNUAS_REQUIRE_NVCC();
  const int W = 5, H = 3;
  std::vector<float> data(W * H * 4);
  for (int k = 0; k < W * H * 4; ++k) data[k] = static_cast<float>(k * 11 % 29) - 7;
  Device dev("texture.ptx");
  TextureTable table;
  TextureDescriptor d = rgba_2d(dev, data, W, H);
  d.address[0] = AddressMode::Wrap;
  d.address[1] = AddressMode::Mirror;
  const std::uint64_t tex = table.create(d);
  auto out = dev.alloc<float>(32 * 8);
  dev.set_textures(&table);
  const float sx = 0.61f, sy = 0.23f;  // lanes run to x = 18.9, y = 7.1: far past both edges
  dev.launch("sample2d", {1, 1, 1}, {32, 1, 1}, tex, out, sx, sy);
  auto h = dev.download<float>(out, 256);
  for (int i = 0; i < 32; ++i) {
    const double px = static_cast<float>(i * sx), py = static_cast<float>(i * sy);
    const long long x = clampi(static_cast<long long>(std::floor(px)), W),
                    y = clampi(static_cast<long long>(std::floor(py)), H);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(h[i * 8 + c], data[(y * W + x) * 4 + c]) << i;
    const long long x0 = static_cast<long long>(std::floor(px - 0.5)),
                    y0 = static_cast<long long>(std::floor(py - 0.5));
    const int corner[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(h[i * 8 + 4 + k],
                data[(clampi(y0 + corner[k][1], H) * W + clampi(x0 + corner[k][0], W)) * 4 + 1])
          << i << " corner " << k;
  }
}

TEST(PtxTexture, TrilinearThreeDimensionalAndLayeredSampling) {
  CNUAS_REQUIRE_NVCC();
  const int W = 6, H = 3, D = 2, L = 3;
  std::vector<float> vol(W * H * D), layers(W * H * L);
  for (int k = 0; k < W * H * D; ++k) vol[k] = static_cast<float>((k * 5) % 17);
  for (int k = 0; k < W * H * L; ++k) layers[k] = static_cast<float>((k * 11) % 13) - 6;
  Device dev("texture.ptx");
  TextureTable table;
  TextureDescriptor d3;
  d3.base = dev.upload(vol);
  d3.dims = 3;
  d3.width = W;
  d3.height = H;
  d3.depth = D;
  d3.filter = FilterMode::Linear;
  TextureDescriptor dl;
  dl.base = dev.upload(layers);
  dl.dims = 2;
  dl.layered = true;
  dl.width = W;
  dl.height = H;
  dl.layers = L;
  dl.address[0] = dl.address[1] = AddressMode::Border;
  dl.border[0] = 42;
  const std::uint64_t t3 = table.create(d3), tl = table.create(dl);
  auto out = dev.alloc<float>(64);
  dev.set_textures(&table);
  dev.launch("sample3d_layered", {1, 1, 1}, {32, 1, 1}, t3, tl, out);
  auto h = dev.download<float>(out, 64);
  for (int i = 0; i < 32; ++i) {
    const double p[3] = {static_cast<float>(i * 0.37f) - 0.5, 1.2 - 0.5, 0.9 - 0.5};
    const int n[3] = {W, H, D};
    double sum = 0;
    for (int m = 0; m < 8; ++m) {
      double f = 1;
      long long ix[3];
      for (int k = 0; k < 3; ++k) {
        const long long b = static_cast<long long>(std::floor(p[k]));
        const double a = w8(p[k] - std::floor(p[k]));
        const bool hi = (m >> k) & 1;
        ix[k] = clampi(b + hi, n[k]);
        f *= hi ? a : 1 - a;
      }
      sum += f * vol[(ix[2] * H + ix[1]) * W + ix[0]];
    }
    EXPECT_NEAR(h[i * 2], sum, 1e-4) << i;
    const long long x = static_cast<long long>(std::floor(i * 0.5)), y = 1, layer = i % 3;
    const float expect =
        x < W ? layers[(layer * H + y) * W + x] : 42.0f;  // border beyond the width
    EXPECT_EQ(h[i * 2 + 1], expect) << i;
  }
}

TEST(PtxTexture, ElementAndNormalizedFloatReadsOfBytes) {
  CNUAS_REQUIRE_NVCC();
  std::vector<unsigned char> px(32 * 4);
  for (int k = 0; k < 128; ++k) px[k] = static_cast<unsigned char>(k * 37 % 256);
  Device dev("texture.ptx");
  TextureTable table;
  TextureDescriptor d;
  d.base = dev.upload(px);
  d.dims = 2;
  d.width = 32;
  d.height = 1;
  d.channels = 4;
  d.channel_bits = 8;
  d.kind = ChannelKind::Unsigned;
  TextureDescriptor n = d;
  n.normalized_read = true;
  const std::uint64_t te = table.create(d), tn = table.create(n);
  auto raw = dev.alloc<unsigned>(128);
  auto norm = dev.alloc<float>(128);
  dev.set_textures(&table);
  dev.launch("bytes", {1, 1, 1}, {32, 1, 1}, te, tn, raw, norm);
  auto hr = dev.download<unsigned>(raw, 128);
  auto hn = dev.download<float>(norm, 128);
  for (int k = 0; k < 128; ++k) {
    EXPECT_EQ(hr[k], px[k]) << k;
    EXPECT_FLOAT_EQ(hn[k], static_cast<float>(px[k] / 255.0)) << k;
  }
}

TEST(PtxTexture, SurfaceReadWriteQueryAndOutOfRangeTrap) {
  CNUAS_REQUIRE_NVCC();
  const int W = 16, H = 4;
  std::vector<int> img(W * H);
  for (int k = 0; k < W * H; ++k) img[k] = k;
  Device dev("texture.ptx");
  TextureTable table;
  TextureDescriptor d;
  d.base = dev.upload(img);
  d.dims = 2;
  d.width = W;
  d.height = H;
  d.kind = ChannelKind::Signed;
  const std::uint64_t s = table.create(d);
  auto sizes = dev.alloc<int>(2);
  dev.set_textures(&table);
  dev.launch("surfaces", {H, 1, 1}, {W, 1, 1}, s, sizes);
  auto h = dev.download<int>(d.base, W * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) EXPECT_EQ(h[y * W + x], (y * W + x) * 10 + y);
  auto hs = dev.download<int>(sizes, 2);
  EXPECT_EQ(hs[0], W);
  EXPECT_EQ(hs[1], H);
  try {
    dev.launch("surface_oob", {1, 1, 1}, {W + 1, 1, 1}, s, dev.alloc<int>(W + 1));
    FAIL() << "expected a trap";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("thread (16,0,0)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("surface coordinate 64 on axis 0 is outside 0..60"),
              std::string::npos)
        << e.what();
  }
  try {
    dev.launch("surface_oob", {1, 1, 1}, {1, 1, 1}, std::uint64_t{999}, dev.alloc<int>(1));
    FAIL() << "expected an unknown-object error";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("object 999 does not exist"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
