//===- KernelPicture.cpp - an SVG picture of each kernel (--emit=svg) ----===//

#include "lib/Target/KernelPicture.h"

#include "lib/Transforms/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int kWidth = 1100;
constexpr const char *kPalette[] = {"#8dd3c7", "#fdb462", "#bebada", "#fb8072",
                                    "#80b1d3", "#b3de69", "#fccde5", "#ffffb3"};

std::string xml(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string nameOf(Operation *op, StringRef prefix, unsigned index) {
  if (auto named = dyn_cast<NameLoc>(op->getLoc()))
    return named.getName().str();
  return (prefix + Twine(index)).str();
}

/// The pipeline.init a stage index was computed from, through advances and
/// loop-carried values, or null.
PipelineInitOp pipelineOf(Value index) {
  auto stage = index.getDefiningOp<PipelineStageOp>();
  if (!stage)
    return {};
  Value state = stage.getState();
  for (int guard = 0; guard < 64; ++guard) {
    if (auto init = state.getDefiningOp<PipelineInitOp>())
      return init;
    if (auto advance = state.getDefiningOp<PipelineAdvanceOp>()) {
      state = advance.getState();
      continue;
    }
    if (auto arg = dyn_cast<BlockArgument>(state)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0)
        return {};
      state = loop.getInitArgs()[arg.getArgNumber() - 1];
      continue;
    }
    if (auto result = dyn_cast<OpResult>(state)) {
      if (auto loop = dyn_cast<scf::ForOp>(result.getOwner())) {
        state = loop.getInitArgs()[result.getResultNumber()];
        continue;
      }
    }
    return {};
  }
  return {};
}

/// Who runs an op: its role's name ("kernel" outside roles) and how many of
/// the role's threads do (a single_thread block's scope).
std::string actorOf(Operation *op) {
  RoleOp role = getEnclosingRole(op);
  std::string who = role ? role.getRoleName().str() : "kernel";
  if (auto single = op->getParentOfType<SingleThreadOp>())
    who += " (one thread per " + stringifyThreadScope(single.getScope()).str() +
           ")";
  else if (role && role.getSingleThread())
    who += " (one thread per warp)";
  else if (role)
    who += " (all threads)";
  return who;
}

/// Text lines in first-insertion order, without duplicates.
struct Lines : std::vector<std::string> {
  void insert(std::string line) {
    if (!llvm::is_contained(*this, line))
      push_back(std::move(line));
  }
};

struct BarrierUse {
  std::string name;
  BarrierAllocOp alloc;
  int64_t offset = -1;
  // Text lines, in first-use order, deduplicated.
  Lines arrive, complete, wait;
};

class Picture {
public:
  Picture(KernelOp kernel, raw_ostream &os) : kernel(kernel), os(os) {}

  void draw() {
    collect();
    std::string body;
    llvm::raw_string_ostream b(body);
    int y = header(b, 30);
    y = warps(b, y + 20);
    y = pipelines(b, y + 20);
    y = sharedMemory(b, y + 20);
    y = tensorMemory(b, y + 20);
    os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth
       << "\" height=\"" << y + 20 << "\" viewBox=\"0 0 " << kWidth << " "
       << y + 20 << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
       << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
       << body << "</svg>\n";
  }

private:
  void collect() {
    unsigned nb = 0, ns = 0, nt = 0;
    kernel.walk([&](Operation *op) {
      if (auto role = dyn_cast<RoleOp>(op)) {
        roles.push_back(role);
      } else if (auto alloc = dyn_cast<BarrierAllocOp>(op)) {
        BarrierUse &use = barriers[alloc];
        use.name = nameOf(op, "barrier", nb++);
        use.alloc = alloc;
        use.offset = alloc.getOffset().value_or(-1);
      } else if (auto alloc = dyn_cast<SmemAllocOp>(op)) {
        buffers.push_back({alloc, nameOf(op, "smem", ns++)});
      } else if (auto alloc = dyn_cast<TmemAllocOp>(op)) {
        tmems.push_back({alloc, nameOf(op, "tmem", nt++)});
      }
    });
    auto root = [](Value bar, bool &remote) -> BarrierAllocOp {
      remote = false;
      if (auto view = bar.getDefiningOp<BarrierRemoteViewOp>()) {
        remote = true;
        bar = view.getBarrier();
      }
      return bar.getDefiningOp<BarrierAllocOp>();
    };
    auto link = [&](BarrierAllocOp alloc, Value index) {
      if (PipelineInitOp init = pipelineOf(index)) {
        unite(alloc.getOperation(), init.getOperation());
        starts[alloc].insert(actorName(init) + " starts at phase " +
                             std::to_string(init.getPhase()));
      }
    };
    kernel.walk([&](Operation *op) {
      bool remote = false;
      if (auto arrive = dyn_cast<BarrierArriveOp>(op)) {
        BarrierAllocOp alloc = root(arrive.getBarrier(), remote);
        if (!alloc)
          return;
        std::string line = "arrive: " + actorOf(op);
        if (auto tx = arrive.getExpectTx())
          line += ", expect_tx " + std::to_string(*tx) + " B";
        if (remote)
          line += ", on a peer CTA's barrier";
        barriers[alloc].arrive.insert(line);
        link(alloc, arrive.getIndex());
      } else if (auto wait = dyn_cast<BarrierWaitOp>(op)) {
        BarrierAllocOp alloc = root(wait.getBarrier(), remote);
        if (!alloc)
          return;
        barriers[alloc].wait.insert("wait: " + actorOf(op));
        link(alloc, wait.getIndex());
      } else if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
        if (!copy.getBarrier())
          return;
        BarrierAllocOp alloc = root(copy.getBarrier(), remote);
        if (!alloc)
          return;
        std::string line = "TMA copy completes on it: " + actorOf(op);
        if (auto dst = dyn_cast<SmemType>(copy.getDst().getType()))
          line += ", into " + bufferName(copy.getDst()) + " (" +
                  std::to_string(dst.getTileBytes()) + " B a stage)";
        if (auto mask = copy.getMulticast())
          line += ", multicast mask " + llvm::utohexstr(*mask, false);
        if (copy.getCtaGroup() == 2)
          line += ", 2-CTA (the leader's barrier)";
        barriers[alloc].complete.insert(line);
        if (copy.getBarrierIndex())
          link(alloc, copy.getBarrierIndex());
      } else if (auto commit = dyn_cast<GemmCommitOp>(op)) {
        if (!commit.getBarrier())
          return;
        BarrierAllocOp alloc = root(commit.getBarrier(), remote);
        if (!alloc)
          return;
        barriers[alloc].complete.insert("tcgen05.commit arrives: " +
                                        actorOf(op));
      }
    });
  }

  /// Union-find over barriers and pipeline inits: a ring is the barriers
  /// indexed by the stages of the same pipelines.
  unsigned idOf(Operation *op) {
    auto [it, inserted] = ids.try_emplace(op, parent.size());
    if (inserted)
      parent.push_back(it->second);
    return it->second;
  }
  unsigned find(unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }
  void unite(Operation *a, Operation *c) {
    unsigned x = find(idOf(a)), y = find(idOf(c));
    if (x != y)
      parent[std::max(x, y)] = std::min(x, y);
  }

  std::string actorName(Operation *op) {
    RoleOp role = getEnclosingRole(op);
    return role ? role.getRoleName().str() : "kernel";
  }

  std::string bufferName(Value v) {
    for (auto &[alloc, name] : buffers)
      if (alloc.getResult() == v)
        return name;
    return "?";
  }

  void text(raw_ostream &b, int x, int y, StringRef s, StringRef extra = "") {
    b << "<text x=\"" << x << "\" y=\"" << y << "\""
      << (extra.empty() ? "" : " ") << extra << ">" << xml(s) << "</text>\n";
  }

  void rect(raw_ostream &b, double x, int y, double w, int h, StringRef fill,
            StringRef extra = "") {
    b << "<rect x=\"" << llvm::format("%.1f", x) << "\" y=\"" << y
      << "\" width=\"" << llvm::format("%.1f", std::max(w, 0.5))
      << "\" height=\"" << h << "\" fill=\"" << fill
      << "\" stroke=\"#333\" stroke-width=\"0.5\"" << (extra.empty() ? "" : " ")
      << extra << "/>\n";
  }

  int header(raw_ostream &b, int y) {
    text(b, 20, y,
         ("kernel " + kernel.getSymName() + " (" + kernel.getTargetName() + ")")
             .str(),
         "font-size=\"18\" font-weight=\"bold\"");
    auto c = kernel.getCluster();
    std::string line =
        std::to_string(kernel.getWarpgroups()) + " warpgroups, " +
        std::to_string(kernel.getNumThreads()) + " threads a CTA; cluster " +
        std::to_string(c[0]) + "x" + std::to_string(c[1]) + "x" +
        std::to_string(c[2]) + "; grid " +
        stringifyGridPolicy(kernel.getGrid()).str() + "; shared memory " +
        std::to_string(kernel.getSmemBytes().value_or(0)) + " bytes (dynamic)";
    text(b, 20, y + 22, line);
    return y + 22;
  }

  int warps(raw_ostream &b, int y) {
    text(b, 20, y + 14, "Warps and roles (register budget per thread)",
         "font-size=\"15\" font-weight=\"bold\"");
    y += 26;
    llvm::StringMap<unsigned> colors;
    auto colorOf = [&](StringRef role) {
      auto [it, inserted] = colors.try_emplace(role, colors.size());
      return kPalette[it->second % std::size(kPalette)];
    };
    int64_t start = startingRegisters(kernel.getNumThreads());
    for (int64_t wg = 0; wg < kernel.getWarpgroups(); ++wg) {
      text(b, 20, y + 25, "warpgroup " + std::to_string(wg));
      std::optional<int64_t> regs;
      for (int w = 0; w < 4; ++w) {
        std::string label, fill = "#eeeeee";
        for (RoleOp role : roles) {
          if (!llvm::is_contained(role.getWarpgroups(), wg) ||
              !llvm::is_contained(role.getWarpList(), w))
            continue;
          if (!label.empty())
            label += " / ";
          label += role.getRoleName().str();
          if (role.getSingleThread())
            label += " (1 thread)";
          fill = colorOf(role.getRoleName());
          if (role.getMaxRegs())
            regs = *role.getMaxRegs();
        }
        if (roles.empty()) {
          label = "kernel body";
          fill = kPalette[0];
        }
        if (label.empty())
          label = "idle";
        double x = 120 + w * 190;
        rect(b, x, y, 180, 40, fill);
        text(b, x + 8, y + 16, "warp " + std::to_string(4 * wg + w),
             "font-size=\"11\" fill=\"#555\"");
        text(b, x + 8, y + 32, label);
      }
      std::string budget =
          regs ? std::to_string(*regs) + " registers (setmaxnreg " +
                     (*regs < start   ? "dec"
                      : *regs > start ? "inc"
                                      : "none") +
                     ")"
               : std::to_string(start) + " registers (the start allocation)";
      text(b, 890, y + 25, budget);
      y += 48;
    }
    return y;
  }

  int pipelines(raw_ostream &b, int y) {
    text(b, 20, y + 14, "Pipelines (rings of barriers: who arrives, who waits)",
         "font-size=\"15\" font-weight=\"bold\"");
    y += 30;
    unsigned ringNo = 0;
    // Rings in the order of their first barrier's declaration.
    llvm::MapVector<unsigned, SmallVector<BarrierAllocOp>> groups;
    for (auto &entry : barriers)
      groups[find(idOf(entry.first))].push_back(entry.first);
    for (auto &[leader, members] : groups) {
      llvm::sort(members, [&](BarrierAllocOp a, BarrierAllocOp c) {
        return barriers[a].offset < barriers[c].offset;
      });
      int64_t depth = cast<BarrierType>(members[0].getType()).getDepth();
      // The ring: one slot per stage.
      int cx = 80, cy = y + 70, r = 45;
      b << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"" << r
        << "\" fill=\"none\" stroke=\"#888\" stroke-width=\"2\"/>\n";
      for (int64_t s = 0; s < depth; ++s) {
        double angle = -M_PI / 2 + 2 * M_PI * s / depth;
        int sx = cx + int(r * std::cos(angle)),
            sy = cy + int(r * std::sin(angle));
        b << "<circle cx=\"" << sx << "\" cy=\"" << sy
          << "\" r=\"11\" fill=\"#ffe9a8\" stroke=\"#333\"/>\n";
        text(b, sx - 4, sy + 4, std::to_string(s), "font-size=\"11\"");
      }
      text(b, cx - 28, cy + 4, "stages", "font-size=\"11\" fill=\"#555\"");
      int ty = y + 14;
      std::string title = "ring " + std::to_string(ringNo++) + ": " +
                          std::to_string(depth) + " stages";
      Lines phases;
      for (BarrierAllocOp alloc : members)
        for (const std::string &s : starts[alloc])
          phases.insert(s);
      if (!phases.empty())
        title += "; " + llvm::join(phases, ", ");
      text(b, 150, ty, title, "font-weight=\"bold\"");
      ty += 18;
      for (BarrierAllocOp alloc : members) {
        BarrierUse &use = barriers[alloc];
        auto type = cast<BarrierType>(alloc.getType());
        text(b, 150, ty,
             "barrier " + use.name + "[" + std::to_string(type.getDepth()) +
                 "]: " + stringifyBarrierKind(type.getKind()).str() + ", " +
                 std::to_string(alloc.getArrivals()) +
                 " arrival(s) a phase, at offset " + std::to_string(use.offset),
             "font-weight=\"bold\" fill=\"#444\"");
        ty += 17;
        auto lines = [&](const Lines &set, StringRef color) {
          for (const std::string &line : set) {
            text(b, 170, ty, line, ("fill=\"" + color + "\"").str());
            ty += 16;
          }
        };
        lines(use.arrive, "#1b6e1b");
        lines(use.complete, "#1b4f8e");
        lines(use.wait, "#9a3a10");
        if (use.arrive.empty() && use.complete.empty() && use.wait.empty()) {
          text(b, 170, ty, "unused");
          ty += 16;
        }
      }
      y = std::max(ty, cy + r + 20) + 6;
    }
    if (ringNo == 0) {
      text(b, 20, y, "no barriers");
      y += 16;
    }
    return y;
  }

  int sharedMemory(raw_ostream &b, int y) {
    int64_t total = kernel.getSmemBytes().value_or(0);
    text(b, 20, y + 14,
         "Shared memory (" + std::to_string(total) +
             " bytes; offsets from tile-allocate-smem)",
         "font-size=\"15\" font-weight=\"bold\"");
    y += 26;
    struct Region {
      int64_t offset, size;
      std::string name, what, fill;
    };
    std::vector<Region> regions;
    for (auto &[alloc, name] : buffers) {
      auto type = cast<SmemType>(alloc.getType());
      std::string shape;
      for (int64_t d : type.getShape())
        shape += std::to_string(d) + "x";
      std::string element;
      llvm::raw_string_ostream(element) << type.getElementType();
      regions.push_back(
          {alloc.getOffset().value_or(0), type.getSizeInBytes(), name,
           shape + element + ", " + stringifySwizzle(type.getSwizzle()).str() +
               ", aligned to " + std::to_string(type.getAlignment()),
           "#a6cee3"});
    }
    for (auto &entry : barriers) {
      auto type = cast<BarrierType>(entry.first.getType());
      regions.push_back({entry.second.offset, 8 * type.getDepth(),
                         entry.second.name,
                         std::to_string(type.getDepth()) + " mbarriers (" +
                             stringifyBarrierKind(type.getKind()).str() + ")",
                         "#fb9a99"});
    }
    for (auto &[alloc, name] : tmems)
      regions.push_back({alloc.getOffset().value_or(0), 8, name + " address",
                         "the tensor-memory address slot", "#cab2d6"});
    llvm::sort(regions, [](const Region &a, const Region &c) {
      return a.offset < c.offset;
    });
    // Padding between regions.
    std::vector<Region> all;
    int64_t at = 0;
    for (const Region &r : regions) {
      if (r.offset > at)
        all.push_back(
            {at, r.offset - at, "padding", "alignment padding", "#dddddd"});
      all.push_back(r);
      at = std::max(at, r.offset + r.size);
    }
    if (total > at)
      all.push_back(
          {at, total - at, "padding", "alignment padding", "#dddddd"});
    double scale = total > 0 ? double(kWidth - 40) / total : 0;
    for (const Region &r : all) {
      double x = 20 + r.offset * scale, w = r.size * scale;
      rect(b, x, y, w, 34, r.fill);
      if (w > 60)
        text(b, int(x) + 4, y + 21, r.name, "font-size=\"11\"");
    }
    y += 52;
    text(b, 20, y, "offset", "font-weight=\"bold\"");
    text(b, 110, y, "bytes", "font-weight=\"bold\"");
    text(b, 200, y, "name", "font-weight=\"bold\"");
    text(b, 360, y, "what", "font-weight=\"bold\"");
    y += 17;
    for (const Region &r : all) {
      text(b, 20, y, std::to_string(r.offset), "font-family=\"monospace\"");
      text(b, 110, y, std::to_string(r.size), "font-family=\"monospace\"");
      text(b, 200, y, r.name);
      text(b, 360, y, r.what);
      y += 16;
    }
    return y;
  }

  int tensorMemory(raw_ostream &b, int y) {
    if (tmems.empty())
      return y;
    text(b, 20, y + 14, "Tensor memory (128 lanes x 512 columns of 32 bits)",
         "font-size=\"15\" font-weight=\"bold\"");
    y += 26;
    double scale = double(kWidth - 40) / 512;
    int64_t column = 0;
    for (auto &[alloc, name] : tmems) {
      auto type = cast<TmemType>(alloc.getType());
      int64_t used = type.getShape().back();
      int64_t allocated = std::max<int64_t>(32, llvm::PowerOf2Ceil(used));
      rect(b, 20 + column * scale, y, allocated * scale, 40, "#cab2d6");
      rect(b, 20 + column * scale, y, used * scale, 40, "#6a3d9a",
           "fill-opacity=\"0.5\"");
      text(b, int(20 + column * scale) + 4, y + 25,
           name + ": columns " + std::to_string(column) + "-" +
               std::to_string(column + used - 1) + " used, " +
               std::to_string(allocated) + " allocated (cta_group " +
               std::to_string(alloc.getCtaGroup()) + ")");
      column += allocated;
    }
    rect(b, 20, y, kWidth - 40, 40, "none");
    return y + 56;
  }

  KernelOp kernel;
  raw_ostream &os;
  SmallVector<RoleOp> roles;
  llvm::MapVector<BarrierAllocOp, BarrierUse> barriers;
  SmallVector<std::pair<SmemAllocOp, std::string>> buffers;
  SmallVector<std::pair<TmemAllocOp, std::string>> tmems;
  llvm::DenseMap<Operation *, unsigned> ids;
  SmallVector<unsigned> parent;
  llvm::DenseMap<BarrierAllocOp, Lines> starts;
};

} // namespace

void tilec::writeKernelPictures(ModuleOp module, raw_ostream &os) {
  SmallVector<KernelOp> kernels;
  module.walk([&](KernelOp k) { kernels.push_back(k); });
  // One SVG document; several kernels are drawn one below the other as
  // nested <svg> elements.
  if (kernels.size() == 1) {
    Picture(kernels[0], os).draw();
    return;
  }
  std::vector<std::string> parts;
  int height = 0;
  std::vector<int> heights;
  for (KernelOp k : kernels) {
    std::string s;
    llvm::raw_string_ostream ss(s);
    Picture(k, ss).draw();
    // The height written by draw().
    size_t at = s.find("height=\"") + 8;
    int h = std::stoi(s.substr(at));
    heights.push_back(h);
    height += h;
    parts.push_back(std::move(s));
  }
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth
     << "\" height=\"" << height << "\">\n";
  int y = 0;
  for (auto [part, h] : llvm::zip(parts, heights)) {
    os << "<g transform=\"translate(0," << y << ")\">\n" << part << "</g>\n";
    y += h;
  }
  os << "</svg>\n";
}
