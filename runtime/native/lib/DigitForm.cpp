//===- DigitForm.cpp ------------------------------------------------------===//
#include "DigitForm.h"

#include <limits>

using namespace mapc;
using namespace mapc::native;

int64_t AxisForm::addressOf(int64_t c) const {
  int64_t u = c + offset, a = 0;
  for (const Digit &d : digits) {
    a += (u % d.k) * d.stride;
    u /= d.k;
  }
  return a;
}

int64_t DigitForm::addressOf(const int64_t *c) const {
  int64_t a = base;
  for (size_t j = 0; j < axes.size(); ++j)
    a += axes[j].addressOf(c[j]);
  return a;
}

std::optional<DigitForm> mapc::native::digitFormOf(const rt::TileMap &tile) {
  const unsigned nk = unsigned(tile.kdims.size());
  if (tile.m.size() != tile.device.size() ||
      tile.groups.size() < tile.data.size())
    return std::nullopt;
  for (const rt::SpaceDim &s : tile.data)
    if (s.off != 0 || s.len < 1)
      return std::nullopt;
  const unsigned firstEmpty = tile.firstEmptyDim();
  for (unsigned l = 0; l < nk; ++l) {
    const rt::KDim &kd = tile.kdims[l];
    // o_K of a data dim rotates its digit (wraps); that of an empty dim
    // only picks the value that holds the data.
    if (kd.enc != rt::Encoding::Binary || kd.k < 1 ||
        (l < firstEmpty && kd.ok != rt::kReplicated && kd.ok != 0))
      return std::nullopt;
  }
  // Address step and constant of every k-Tile dim.
  std::vector<int64_t> stride(nk, 0);
  std::vector<bool> placed(nk, false);
  DigitForm form;
  int64_t place = 1;
  for (size_t i = 0; i < tile.device.size(); ++i) {
    const rt::SpaceDim &s = tile.device[i];
    if (s.off != 0)
      return std::nullopt;
    int64_t radix = 1;
    for (unsigned l : tile.m[i]) {
      if (l >= nk || placed[l])
        return std::nullopt;
      placed[l] = true;
      const rt::KDim &kd = tile.kdims[l];
      int64_t step = rt::satMul(place, radix);
      if (kd.sense == rt::Sense::Plus) {
        stride[l] = step;
        form.base += step * kd.otk;
      } else {
        stride[l] = -step;
        form.base += step * (kd.tk - 1 - kd.otk);
      }
      radix = rt::satMul(radix, kd.tk);
    }
    if (radix != s.len)
      return std::nullopt;
    form.base += place * s.toff;
    place = rt::satMul(place, s.tlen);
  }
  if (place == std::numeric_limits<int64_t>::max())
    return std::nullopt;
  for (unsigned l = 0; l < nk; ++l)
    if (!placed[l])
      return std::nullopt;
  unsigned l = 0;
  for (size_t j = 0; j < tile.data.size(); ++j) {
    AxisForm axis;
    axis.offset = tile.data[j].toff;
    axis.length = tile.data[j].len;
    for (unsigned g = 0; g < tile.groups[j]; ++g, ++l) {
      const rt::KDim &kd = tile.kdims[l];
      if (kd.ok == rt::kReplicated) {
        // Holds no data digit; the source reads its first value.
        if (kd.k > 1)
          form.replicas.push_back({kd.k, stride[l]});
        // ikmap still counts it as a digit of radix k with value 0.
        axis.digits.push_back({kd.k, 0});
        continue;
      }
      axis.digits.push_back({kd.k, stride[l]});
    }
    form.axes.push_back(axis);
  }
  for (; l < nk; ++l) { // empty dims: one value, or replicas
    const rt::KDim &kd = tile.kdims[l];
    if (kd.ok != rt::kReplicated)
      form.base += (kd.ok % kd.k) * stride[l];
    else if (kd.k > 1)
      form.replicas.push_back({kd.k, stride[l]});
  }
  // Fuse digits that continue each other and drop radix-1 digits; a
  // stride-0 digit stays (it must still consume its radix).
  for (AxisForm &axis : form.axes) {
    std::vector<Digit> fused;
    for (const Digit &d : axis.digits) {
      if (d.k == 1)
        continue;
      if (!fused.empty() && fused.back().stride != 0 &&
          d.stride == rt::satMul(fused.back().k, fused.back().stride)) {
        fused.back().k = rt::satMul(fused.back().k, d.k);
        continue;
      }
      fused.push_back(d);
    }
    if (fused.size() > AxisCursor::kMaxDigits)
      return std::nullopt;
    axis.digits = std::move(fused);
  }
  return form;
}

AxisCursor::AxisCursor(const AxisForm &axis, int64_t c) : axis(&axis) {
  int64_t u = c + axis.offset;
  for (size_t i = 0; i < axis.digits.size(); ++i) {
    const Digit &d = axis.digits[i];
    digit[i] = u % d.k;
    addr += digit[i] * d.stride;
    u /= d.k;
  }
}

int64_t AxisCursor::run() const {
  if (axis->digits.empty())
    return std::numeric_limits<int64_t>::max();
  return axis->digits[0].k - digit[0];
}

void AxisCursor::advance(int64_t n) {
  const std::vector<Digit> &ds = axis->digits;
  if (ds.empty())
    return;
  digit[0] += n;
  addr += n * ds[0].stride;
  for (size_t i = 0; i < ds.size() && digit[i] == ds[i].k; ++i) {
    digit[i] = 0;
    addr -= ds[i].k * ds[i].stride;
    if (i + 1 < ds.size()) {
      ++digit[i + 1];
      addr += ds[i + 1].stride;
    }
  }
}

int64_t AxisCursor::digitAt(unsigned i) const {
  return i < axis->digits.size() ? digit[i] : 0;
}

void AxisCursor::stepDigit(unsigned g) {
  const std::vector<Digit> &ds = axis->digits;
  for (size_t i = g; i < ds.size(); ++i) {
    addr += ds[i].stride;
    if (++digit[i] < ds[i].k)
      return;
    digit[i] = 0;
    addr -= ds[i].k * ds[i].stride;
  }
}
